import { createCommands, type Commands } from '../commands';
import { createApi, type Api, type FetchImpl } from '../services/api';
import { createAuthModels, resumeSession, type AuthModels } from '../services/auth';
import type { Clock } from '../services/clock';
import { describeUserAgent } from '../contracts/userAgent';
import { startHealthPolling } from '../services/health';
import { createChartModel, type ChartModel } from '../services/market/chartModel';
import {
  createPriceChannel,
  priceSocketUrl,
  type PriceChannel,
  type WebSocketClass,
} from '../services/market/priceChannel';
import { createRouter, type HistoryPort, type Router } from '../services/router';
import { createStores, type Stores } from '../services/stores';
import {
  BANNER,
  createTerminalSession,
  promptSignal,
  type TerminalSession,
} from '../services/terminal/session';
import { createTradePanelModel, type TradePanelModel } from '../services/trading/tradePanel';

export interface AppConfig {
  mainBase: string;
  tradingBase: string;
  fetch: FetchImpl;
  history: HistoryPort;
  clock: Clock;
  /** The WebSocket class for the price socket; the browser's by default. */
  webSocket?: WebSocketClass;
  /** The page address the price socket's address is resolved against; the current page by default. */
  pageUrl?: string;
  /** This browser's User-Agent, named as device_info when a login is remembered. */
  userAgent?: string;
}

/** Everything the views use, built once at start and handed down through React context. */
export interface AppServices {
  stores: Stores;
  router: Router;
  api: Api;
  commands: Commands;
  terminal: TerminalSession;
  tradePanel: TradePanelModel;
  /** The auth and account modals, the header's Logout and the reset page dispatch here. */
  auth: AuthModels;
  prices: PriceChannel;
  chart: ChartModel;
  /** Starts history tracking, health polling and the session refresh; returns the disposer. */
  start(): () => void;
}

export function createAppServices(config: AppConfig): AppServices {
  const stores = createStores();
  const router = createRouter(config.history);
  const api = createApi({
    mainBase: config.mainBase,
    tradingBase: config.tradingBase,
    fetch: config.fetch,
    tokens: stores.session,
    navigate: (path) => router.navigate(path),
  });
  const commands = createCommands({ stores, api });
  const terminal = createTerminalSession({
    commands,
    terminal: stores.terminal,
    prompt: promptSignal(stores.session, stores.ui),
  });
  stores.terminal.print(BANNER);
  const auth = createAuthModels({
    main: api.main,
    stores,
    ui: stores.ui,
    clock: config.clock,
    navigate: (path) => router.navigate(path),
    ...(config.userAgent === undefined ? {} : { deviceInfo: describeUserAgent(config.userAgent) }),
  });
  const prices = createPriceChannel({
    url: priceSocketUrl(
      config.tradingBase,
      config.pageUrl ?? globalThis.location?.href ?? 'http://127.0.0.1/',
    ),
    WebSocket: config.webSocket ?? globalThis.WebSocket,
    market: stores.market,
    connection: stores.connection,
    clock: config.clock,
  });
  const chart = createChartModel({ ui: stores.ui, market: stores.market, api: api.trading, channel: prices });
  return {
    stores,
    router,
    api,
    commands,
    terminal,
    tradePanel: createTradePanelModel(stores.session, api.trading),
    auth,
    prices,
    chart,
    start() {
      const stopHistory = router.start();
      const stopHealth = startHealthPolling(api.main, stores.connection, config.clock);
      const stopPrices = prices.start();
      const stopChart = chart.start();
      void resumeSession(api, stores.session);
      return () => {
        stopHistory();
        stopHealth();
        stopChart();
        stopPrices();
      };
    },
  };
}
