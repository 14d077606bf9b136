import { browserLockDeps } from '../services/api/browserLock';
import { computed } from '@preact/signals-core';
import { createCommands, type Commands } from '../commands';
import { createShell } from '../commands/shell';
import { createApi, type Api, type FetchImpl } from '../services/api';
import { createAuthModels, endSession, type AuthModels } from '../services/auth';
import { createStepUpModel, type StepUpModel } from '../services/auth/stepUp';
import type { Clock } from '../services/clock';
import { deviceInfoOf } from '../contracts/userAgent';
import type { NotificationPort, SoundPort } from '../services/feed/alerts';
import { createFeedService, type FeedService } from '../services/feed/feedService';
import type { SignalStreamPort } from '../services/feed/signalChannel';
import { createLayoutStore, type LayoutStore } from '../services/layout';
import { createChartModel, type ChartModel } from '../services/market/chartModel';
import type { TradingViewPort } from '../services/market/tradingView';
import type { PushPort } from '../services/notifications';
import {
  createPriceChannel,
  priceSocketUrl,
  type PriceChannel,
  type WebSocketClass,
} from '../services/market/priceChannel';
import { createRouter, type HistoryPort, type Router } from '../services/router';
import { createProposals, type Proposals } from '../services/rules/proposals';
import { rulesApi, type RulesApi } from '../services/rules/rules';
import { createPaletteModel, type PaletteModel } from '../services/palette';
import { memoryStorage, type StoragePort } from '../services/storage';
import { createStores, type Stores } from '../services/stores';
import { createHistoryStore } from '../services/terminal/history';
import { failure } from '../services/terminal/output';
import {
  BANNER,
  createTerminalSession,
  promptSignal,
  type TerminalSession,
} from '../services/terminal/session';
import type { Dialogs } from '../services/trading/dialogs';
import { createConfirmations, type Confirmations } from '../services/confirmations';
import { createWelcome, type Welcome } from '../services/terminal/welcome';
import { createKeysModal, type KeysModalModel } from '../services/exchanges/keysModal';
import { approveOrder, fetchAccount } from '../services/trading/account';
import { createOrderPreview, type OrderPreviewModel } from '../services/trading/orderPreview';
import { closedOutput } from '../services/trading/orders';
import { createToasts, type Toasts } from '../services/toasts';
import { createTradesHistory, type TradesHistory } from '../services/trading/tradesHistory';
import { createPositionsActions, type PositionsActions } from '../services/trading/positionsActions';
import {
  createPositionsChannel,
  positionsSocketUrl,
  type PositionsChannel,
} from '../services/trading/positionsChannel';
import { createTradePanelModel, type TradePanelModel } from '../services/trading/tradePanel';
import { startAppServices, type BuiltServices } from './startServices';

export interface AppConfig {
  mainBase: string;
  tradingBase: string;
  fetch: FetchImpl;
  history: HistoryPort;
  clock: Clock;
  /** The WebSocket class for the price and positions sockets; the browser's by default. */
  webSocket?: WebSocketClass;
  /** The page address the price socket's address is resolved against; the current page by default. */
  pageUrl?: string;
  /** This browser's User-Agent, named as device_info when a login is remembered. */
  userAgent?: string;
  /** This browser's IANA time zone: the approximate place of a remembered device. */
  timeZone?: string;
  /** confirm/alert for the positions pane, keys and first live orders; the app's own dialog by default. */
  dialogs?: Dialogs;
  /** Where history, aliases, the layout and palette ranking are kept; localStorage in the app. */
  storage?: StoragePort;
  /** The signal stream's transport (a SharedWorker in the app); none by default. */
  signalStream?: SignalStreamPort;
  /** The alert sounds (Web Audio in the app); silent by default. */
  sound?: SoundPort;
  /** Browser notifications (the Notification API in the app); none by default. */
  notifications?: NotificationPort;
  /** TradingView's chart in a sandboxed frame; none by default (the offline chart only). */
  tradingView?: TradingViewPort;
  /** The browser's Web Push; none by default. */
  push?: PushPort;
}

/** No stream: the feed shows what is saved or seeded (tests that do not drive the stream). */
const NO_STREAM: SignalStreamPort = { connect: () => () => undefined };
const SILENT: SoundPort = { play: () => undefined };

/** Everything the views use, built once at start and handed down through React context. */
export interface AppServices {
  stores: Stores;
  /** The clock every wait runs on (the payment pending page polls on it). */
  clock: Clock;
  router: Router;
  api: Api;
  commands: Commands;
  terminal: TerminalSession;
  /** The Ctrl+K command palette. */
  palette: PaletteModel;
  /** The saved pane sizes, `layout reset`, and focus requests from keys. */
  layout: LayoutStore;
  tradePanel: TradePanelModel;
  /** The Open Positions pane's buttons: close one (confirmed), close all, refresh. */
  positions: PositionsActions;
  /** The Trades tab: the user's fills, newest first. */
  trades: TradesHistory;
  /** What happened on the user's behalf (a rule fired or was held back), in a corner for a few seconds. */
  toasts: Toasts;
  /** An ask rule's proposals: their toasts and the terminal's `[y/N]` prompt. */
  proposals: Proposals;
  /** The app's own confirm and alert (one dialog at a time), shown by `ConfirmDialog`. */
  confirmations: Confirmations;
  /** The terminal's greeting to a first visitor. */
  welcome: Welcome;
  positionsChannel: PositionsChannel;
  /** The line under the command prompt saying what Enter will do for an order line. */
  orderPreview: OrderPreviewModel;
  /** The auth and account modals, the header's Logout and the reset page dispatch here. */
  auth: AuthModels;
  /** The "Confirm it's you" dialog a sensitive action opens when the sign-in needs confirming. */
  stepUp: StepUpModel;
  /** The Trade Rules & Settings modal's calls (the rules commands use the same). */
  rules: RulesApi;
  /** The API Settings modal: saved exchange keys, Save Key and Delete. */
  keys: KeysModalModel;
  prices: PriceChannel;
  chart: ChartModel;
  /** The signal feed: stream, alerts, quick trade from a card, watchlist toggles, the ticking clock. */
  feed: FeedService;
  /**
   * Starts history tracking, health polling, the price and positions channels, the order preview and
   * the session refresh; returns the disposer.
   */
  start(): () => void;
}

export function createAppServices(config: AppConfig): AppServices {
  const storage = config.storage ?? memoryStorage();
  const stores = createStores({
    storage,
    clock: config.clock,
    ...(config.notifications === undefined ? {} : { notifications: config.notifications }),
    ...(config.tradingView === undefined ? {} : { tradingView: config.tradingView }),
    ...(config.push === undefined ? {} : { push: config.push }),
  });
  const router = createRouter(config.history);
  const api = createApi({
    mainBase: config.mainBase,
    tradingBase: config.tradingBase,
    fetch: config.fetch,
    tokens: stores.session,
    navigate: (path) => router.navigate(path),
    lock: browserLockDeps(),
    // Called only once a call is refused, long after `stepUp` below exists.
    stepUp: () => stepUp.ask(),
  });
  const stepUp = createStepUpModel({
    main: () => api.main,
    signInAgain: () => {
      void endSession(api.main, stores).then(() => stores.ui.openAuthModal('login'));
    },
  });
  const layout = createLayoutStore(storage);
  // History and aliases belong to the user at the prompt (guest when logged out).
  const userName = computed(() => stores.session.user.value?.username ?? 'guest', { name: 'app.user' });
  const shell = createShell({ storage, user: userName, layout });
  const commands = createCommands({ stores, api, shell });
  // The prompt names the account orders go to (`kim@BTC/USDT paper ›`, `… live ›`, `… demo ›`).
  const venueTag = computed(() => stores.account.badge.value);
  const confirmations = createConfirmations();
  const dialogs = config.dialogs ?? confirmations;
  const approve = () => approveOrder(stores.account, (question) => dialogs.confirm(question));
  const terminal = createTerminalSession({
    commands,
    terminal: stores.terminal,
    prompt: promptSignal(stores.session, stores.ui, venueTag),
    history: createHistoryStore(storage, userName),
    clock: config.clock,
    onLineStart: () => stores.feedView.markLineStart(),
  });
  const palette = createPaletteModel({
    registry: commands.registry,
    execute: (line) => terminal.execute(line, 'ui'),
    storage,
    clock: config.clock,
  });
  stores.terminal.print(BANNER);
  const auth = createAuthModels({
    main: api.main,
    stores,
    ui: stores.ui,
    clock: config.clock,
    navigate: (path) => router.navigate(path),
    ...(config.userAgent === undefined
      ? {}
      : { deviceInfo: deviceInfoOf(config.userAgent, config.timeZone) }),
  });
  const pageUrl = config.pageUrl ?? globalThis.location?.href ?? 'http://127.0.0.1/';
  const WebSocket = config.webSocket ?? globalThis.WebSocket;
  const prices = createPriceChannel({
    url: priceSocketUrl(config.tradingBase, pageUrl),
    WebSocket,
    market: stores.market,
    connection: stores.connection,
    clock: config.clock,
  });
  const chart = createChartModel({ ui: stores.ui, market: stores.market, api: api.trading, channel: prices });
  const proposals = createProposals({
    clock: config.clock,
    loggedIn: stores.session.isLoggedIn,
    ledger: stores.rules.ledger,
    run: (line) => terminal.execute(line, 'ui'),
    print: (lines) => stores.terminal.print(lines),
    terminal: stores.terminal,
    headline: (id) => stores.feed.signals.peek().find((s) => s.id === id)?.content ?? null,
  });
  const positionsChannel = createPositionsChannel({
    url: positionsSocketUrl(config.tradingBase, pageUrl),
    WebSocket,
    session: stores.session,
    positions: stores.positions,
    trading: api.trading,
    clock: config.clock,
    notify: (text) => stores.terminal.print([failure(text)]),
    onProposal: (message) => proposals.receive(message),
  });
  const feed = createFeedService({
    stores,
    main: api.main,
    trading: api.trading,
    mainBase: config.mainBase,
    prices,
    stream: config.signalStream ?? NO_STREAM,
    sound: config.sound ?? SILENT,
    clock: config.clock,
    approveOrder: approve,
  });
  const rules = rulesApi(api.main, stores.rules);
  const keysModel = createKeysModal({
    main: api.main,
    session: stores.session,
    dialogs,
    onDeleted: () => void fetchAccount(api.trading, stores.account),
  });
  const trades = createTradesHistory({ trading: api.trading });
  const toasts = createToasts((fn, ms) => config.clock.setTimer(fn, ms));
  const orderPreview = createOrderPreview({
    draft: terminal.draft,
    readOrder: (line) => commands.readOrder(line),
    session: stores.session,
    trading: api.trading,
    clock: config.clock,
    fatFingerCap: shell.preferences.fatFingerCap,
    accountMode: stores.account.mode,
  });
  const built: BuiltServices = {
    stores,
    clock: config.clock,
    router,
    api,
    commands,
    terminal,
    palette,
    layout,
    tradePanel: createTradePanelModel({
      session: stores.session,
      trading: api.trading,
      positions: stores.positions,
      approve,
    }),
    confirmations,
    welcome: createWelcome({
      storage,
      loggedIn: stores.session.isLoggedIn,
      execute: (line) => terminal.execute(line, 'ui'),
    }),
    positions: createPositionsActions({
      trading: api.trading,
      positions: stores.positions,
      dialogs,
      report: (fills) => stores.terminal.print(closedOutput(fills)),
      accountMode: stores.account.mode,
      print: (lines) => stores.terminal.print(lines),
    }),
    trades,
    toasts,
    proposals,
    positionsChannel,
    orderPreview,
    auth,
    stepUp,
    rules,
    keys: keysModel,
    prices,
    chart,
    feed,
  };
  return { ...built, start: () => startAppServices(built, pageUrl) };
}
