import { createCommands, type Commands } from '../commands';
import { createApi, type Api, type FetchImpl } from '../services/api';
import { resumeSession } from '../services/auth';
import type { Clock } from '../services/clock';
import { startHealthPolling } from '../services/health';
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
}

/** Everything the views use, built once at start and handed down through React context. */
export interface AppServices {
  stores: Stores;
  router: Router;
  api: Api;
  commands: Commands;
  terminal: TerminalSession;
  tradePanel: TradePanelModel;
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
  return {
    stores,
    router,
    api,
    commands,
    terminal,
    tradePanel: createTradePanelModel(stores.session, api.trading),
    start() {
      const stopHistory = router.start();
      const stopHealth = startHealthPolling(api.main, stores.connection, config.clock);
      void resumeSession(api, stores.session);
      return () => {
        stopHistory();
        stopHealth();
      };
    },
  };
}
