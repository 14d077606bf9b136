import { browserLockDeps } from '../services/api/browserLock';
import { computed } from '@preact/signals-core';
import { createCommands } from '../commands';
import { createShell } from '../commands/shell';
import { createApi, type FetchImpl } from '../services/api';
import { createAuthModels, endSession } from '../services/auth';
import { createStepUpModel } from '../services/auth/stepUp';
import type { Clock } from '../services/clock';
import { deviceInfoOf } from '../contracts/userAgent';
import type { NotificationPort, SoundPort } from '../services/feed/alerts';
import { createFeedService } from '../services/feed/feedService';
import type { SignalStreamPort } from '../services/feed/signalChannel';
import { createLayoutStore } from '../services/layout';
import { createChartModel } from '../services/market/chartModel';
import type { TradingViewPort } from '../services/market/tradingView';
import type { PushPort } from '../services/notifications';
import { createPriceChannel, priceSocketUrl, type WebSocketClass } from '../services/market/priceChannel';
import { createRouter, type HistoryPort } from '../services/router';
import { withDecision } from '../services/rules/announce';
import { createProposals } from '../services/rules/proposals';
import { rulesApi } from '../services/rules/rules';
import { createPaletteModel } from '../services/palette';
import { memoryStorage, type StoragePort } from '../services/storage';
import { createStores } from '../services/stores';
import { createHistoryStore } from '../services/terminal/history';
import { failure, success } from '../services/terminal/output';
import { BANNER, createTerminalSession, promptSignal } from '../services/terminal/session';
import type { Dialogs } from '../services/trading/dialogs';
import { createConfirmations } from '../services/confirmations';
import { createWelcome } from '../services/terminal/welcome';
import { createKeysModal } from '../services/exchanges/keysModal';
import { approveOrder, fetchAccount } from '../services/trading/account';
import { createOrderPreview } from '../services/trading/orderPreview';
import { closedOutput } from '../services/trading/orders';
import { createToasts } from '../services/toasts';
import { createTradesHistory } from '../services/trading/tradesHistory';
import { createPositionsActions } from '../services/trading/positionsActions';
import { createPositionsChannel, positionsSocketUrl } from '../services/trading/positionsChannel';
import { createTradePanelModel } from '../services/trading/tradePanel';
import type { AppServices } from './appServices';
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
  // The prompt names the account orders go to (`kim@BTC/USDT paper ›`, `… bybit live ›`, `… okx demo ›`).
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
    openOrders: stores.openOrders,
    trading: api.trading,
    clock: config.clock,
    notify: (text) => stores.terminal.print([failure(text)]),
    inform: (text) => stores.terminal.print([success(text)]),
    onProposal: (message) => {
      proposals.receive(message);
      // A confirmed proposal that filled: into the ledger now, so the terminal says so (one log).
      if (message.type === 'proposal_closed' && message.event === 'fired')
        stores.rules.setLedger(withDecision(stores.rules.ledger.peek(), message.decision));
    },
  });
  const toasts = createToasts(
    (fn, ms) => config.clock.setTimer(fn, ms),
    () => config.clock.now(),
  );
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
    // A card's trade: a toast that stays findable in Recent, and the server's answer in the terminal.
    reports: {
      toast: (text, tone) => toasts.push(text, tone),
      print: (lines) => stores.terminal.print(lines),
    },
  });
  const rules = rulesApi(api.main, stores.rules);
  const keysModel = createKeysModal({
    main: api.main,
    session: stores.session,
    dialogs,
    onDeleted: () => void fetchAccount(api.trading, stores.account),
  });
  const trades = createTradesHistory({ trading: api.trading });
  const orderPreview = createOrderPreview({
    draft: terminal.draft,
    readOrder: (line) => commands.readOrder(line),
    session: stores.session,
    trading: api.trading,
    clock: config.clock,
    fatFingerCap: shell.preferences.fatFingerCap,
    accountVenue: stores.account.venue,
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
      accountVenue: stores.account.venue,
      print: (lines) => stores.terminal.print(lines),
      run: (line) => terminal.execute(line, 'ui'),
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
