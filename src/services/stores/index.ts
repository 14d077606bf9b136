import { systemClock, type Clock } from '../clock';
import type { NotificationPort } from '../feed/alerts';
import { createAlertsStore, type AlertsStore } from '../feed/alertsStore';
import { createFeedStore, type FeedStore } from '../feed/feedStore';
import { createFeedFilterStore, type FeedFilterStore } from '../feed/feedFilter';
import { createFeedView, type FeedView } from '../feed/feedView';
import { createQuickAmountsStore, type QuickAmountsStore } from '../feed/quickAmounts';
import { createQuickBracketStore, type QuickBracketStore } from '../feed/quickBracket';
import { createWatchlistStore, type WatchlistStore } from '../feed/watchlist';
import { createChartSourceModel, type ChartSourceModel } from '../market/chartSource';
import type { TradingViewPort } from '../market/tradingView';
import { createNotificationsStore, type NotificationsStore, type PushPort } from '../notifications';
import { memoryStorage, type StoragePort } from '../storage';
import { createPremiumStore, type PremiumStore } from '../premium';
import { createRulesStore, type RulesStore } from '../rules/rules';
import { createScorecardStore, type ScorecardStore } from '../scorecard/scorecard';
import { createAccountStore, type AccountStore } from '../trading/account';
import { createPositionsStore, type PositionsStore } from '../trading/positionsStore';
import { createOpenOrdersStore, type OpenOrdersStore } from '../trading/openOrdersStore';
import { createAuthStore, type AuthStore } from './auth';
import { createConnectionStore, type ConnectionStore } from './connection';
import { createMarketStore, type MarketStore } from './market';
import { createSessionStore, type SessionStore } from './session';
import { createTerminalStore, type TerminalStore } from './terminal';
import { createUiStore, type UiStore } from './ui';

export interface Stores {
  session: SessionStore;
  ui: UiStore;
  connection: ConnectionStore;
  terminal: TerminalStore;
  auth: AuthStore;
  market: MarketStore;
  /** Which chart the pane shows: the offline candles or TradingView's widget, and why. */
  chartSource: ChartSourceModel;
  positions: PositionsStore;
  /** The limit orders resting on the account (the Open Orders tab, `orders`, `cx`). */
  openOrders: OpenOrdersStore;
  /** Where orders go (paper, or one of the user's keys: LIVE or DEMO). */
  account: AccountStore;
  /** The signals (newest 50, saved as `cryptoNewsSignals`). */
  feed: FeedStore;
  /** The feed pane's tabs, filters and focus ring, and the cards on screen. */
  feedView: FeedView;
  /** The feed's keyword filter: the account's (from the server) or, signed out, this browser's. */
  feedFilter: FeedFilterStore;
  watchlist: WatchlistStore;
  /** Notification settings (`notificationSettings`) and the browser permission. */
  alerts: AlertsStore;
  /** Quick-trade amounts (`quickTradeAmounts`). */
  quickAmounts: QuickAmountsStore;
  /** The default bracket of card and quick trades (off by default), kept beside the amounts. */
  quickBracket: QuickBracketStore;
  /** Auto-trade rules, the risk envelope, the decision ledger and the last backtest. */
  rules: RulesStore;
  /** The Upgrade to Premium modal, the admin panel, and the way out to a checkout page. */
  premium: PremiumStore;
  /** The signal scorecard (hit rates after arrival) and its modal. */
  scorecard: ScorecardStore;
  /** Notifications away from the tab: the server's settings, the Telegram link, Web Push here. */
  notifications: NotificationsStore;
}

export interface StoresDeps {
  /** Where the feed, the alert settings, the amounts and the chart choice are kept; memory by default. */
  storage?: StoragePort;
  clock?: Clock;
  notifications?: NotificationPort;
  /** The browser's way to TradingView's widget; none by default (the CLI, tests that do not show it). */
  tradingView?: TradingViewPort | null;
  /** The browser's Web Push (service worker, PushManager); none by default. */
  push?: PushPort;
}

export function createStores(deps: StoresDeps = {}): Stores {
  const storage = deps.storage ?? memoryStorage();
  const session = createSessionStore();
  const clock = deps.clock ?? systemClock;
  const feed = createFeedStore({ storage, clock });
  const watchlist = createWatchlistStore();
  const ui = createUiStore(storage);
  const market = createMarketStore();
  const feedFilter = createFeedFilterStore(storage);
  return {
    session,
    ui,
    connection: createConnectionStore(),
    terminal: createTerminalStore(),
    auth: createAuthStore(),
    market,
    chartSource: createChartSourceModel({
      ui,
      market,
      clock,
      port: deps.tradingView ?? null,
    }),
    positions: createPositionsStore(),
    openOrders: createOpenOrdersStore(),
    account: createAccountStore(),
    feed,
    feedView: createFeedView({
      feed,
      watched: watchlist.watched,
      loggedIn: session.isLoggedIn,
      keywords: feedFilter.passes,
    }),
    feedFilter,
    watchlist,
    alerts: createAlertsStore(storage, deps.notifications),
    quickAmounts: createQuickAmountsStore(storage),
    quickBracket: createQuickBracketStore(storage),
    rules: createRulesStore(),
    premium: createPremiumStore(),
    scorecard: createScorecardStore(),
    notifications: createNotificationsStore(deps.push),
  };
}
