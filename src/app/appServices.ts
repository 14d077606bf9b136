import type { Commands } from '../commands';
import type { Api } from '../services/api';
import type { AuthModels } from '../services/auth';
import type { StepUpModel } from '../services/auth/stepUp';
import type { Clock } from '../services/clock';
import type { FeedService } from '../services/feed/feedService';
import type { LayoutStore } from '../services/layout';
import type { ChartModel } from '../services/market/chartModel';
import type { PriceChannel } from '../services/market/priceChannel';
import type { Router } from '../services/router';
import type { Proposals } from '../services/rules/proposals';
import type { RulesApi } from '../services/rules/rules';
import type { PaletteModel } from '../services/palette';
import type { Stores } from '../services/stores';
import type { TerminalSession } from '../services/terminal/session';
import type { Confirmations } from '../services/confirmations';
import type { Welcome } from '../services/terminal/welcome';
import type { KeysModalModel } from '../services/exchanges/keysModal';
import type { OrderPreviewModel } from '../services/trading/orderPreview';
import type { Toasts } from '../services/toasts';
import type { TradesHistory } from '../services/trading/tradesHistory';
import type { PositionsActions } from '../services/trading/positionsActions';
import type { PositionsChannel } from '../services/trading/positionsChannel';
import type { TradePanelModel } from '../services/trading/tradePanel';

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
