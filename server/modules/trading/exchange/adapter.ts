import type Decimal from 'decimal.js';
import type { VenueName } from '../../../../src/contracts/venues';
import type { SymbolFilters } from '../paper/filters';
import type { ConditionalOrder, ConditionalOrderRequest, ConditionalType } from './conditionals';
import type { ExchangeEvent } from './events';
import type {
  AccountBalance,
  LimitOrderRequest,
  MarketOrderRequest,
  OrderBookDepth,
  OrderResult,
  OrderSide,
  OrderSizing,
  PositionRisk,
  RestingOrder,
} from './orders';

/**
 * An Idempotency-Key taken by the write that places its order (see
 * {@link ExchangeAdapter.placeKeyedMarketOrder}); the order's client id is the request's.
 */
export interface KeyClaim {
  userId: string;
  idempotencyKey: string;
  /** Tells a retry of the same order from a different order under the same key. */
  requestHash: string;
  /** `paper` or the key id the order went to: where a retry asks. */
  account: string;
}

/** Which engine an adapter is: the paper exchange or one venue's live API. */
export type ExchangeKind = 'paper' | 'binance-usdm' | 'bybit-linear' | 'okx-swap';

export interface ExchangeAdapter {
  readonly kind: ExchangeKind;
  placeMarketOrder(account: string, request: MarketOrderRequest): Promise<OrderResult>;
  /**
   * Places a limit order. The answer is the venue's: `NEW` while it rests, `FILLED` or `PARTIALLY_FILLED`
   * as it executed, `EXPIRED` for an IOC that found nothing or a post-only that would have taken. A venue
   * that refuses such a post-only outright (Binance -5022) throws ExchangeError in its words instead; the
   * live adapters all do so, so a post-only that would take is a refusal on every venue. No clear answer
   * is looked up by the client id before the adapter gives up (OrderOutcomeUnknown): never resent.
   */
  placeLimitOrder?(account: string, request: LimitOrderRequest): Promise<OrderResult>;
  /**
   * The account's limit orders resting now (one symbol's, or all). `cached`: a copy this process holds
   * may answer (the positions socket's reads, kept current by the account's change events).
   */
  openOrders?(account: string, symbol?: string, opts?: { cached?: boolean }): Promise<RestingOrder[]>;
  /**
   * Cancels one resting order by its venue id or client id. Null when the venue no longer holds it open
   * (filled or cancelled meanwhile): looked up, never guessed.
   */
  cancelOrder?(
    account: string,
    symbol: string,
    ref: { orderId?: string; clientOrderId?: string },
  ): Promise<RestingOrder | null>;
  /** The symbol's order book, `limit` levels a side (the slippage guard walks it before a market order). */
  depth?(symbol: string, limit: number): Promise<OrderBookDepth>;
  /**
   * A venue whose books are in our own database (the paper exchange) places a keyed order and records
   * its Idempotency-Key, filled, in one statement: both are written or neither is, so no outcome is
   * ever unknown. Null when the key was taken already: its earlier use is the answer. A refusal
   * (margin, size) writes nothing and throws as `placeMarketOrder` does.
   */
  placeKeyedMarketOrder?(
    account: string,
    request: MarketOrderRequest,
    key: KeyClaim,
  ): Promise<OrderResult | null>;
  /**
   * An order by its client id (Binance asks for its symbol too), in whatever state it is, or null only
   * when the venue says it does not exist (-2013): what to ask before a retry.
   */
  queryOrder(account: string, clientOrderId: string, symbol: string): Promise<OrderResult | null>;
  /** Market, reduce-only, for the whole position; null when there is none. */
  closePosition(account: string, symbol: string, clientOrderId: string): Promise<OrderResult | null>;
  /**
   * Market, reduce-only, closing up to `quantity` of the position on `symbol` that `opened` (BUY: a long,
   * SELL: a short) built: never more than what is left of it, never the other way. Null when no such
   * position is left (it was closed by hand, or flipped).
   */
  reducePosition(
    account: string,
    request: { symbol: string; opened: OrderSide; quantity: string; clientOrderId: string },
  ): Promise<OrderResult | null>;
  /**
   * Closes every position; the fills. A venue that may leave some closes unanswered or refused (the live
   * one) closes the others and then throws {@link CloseAllIncomplete} with all three.
   */
  closeAllPositions(account: string, clientOrderIdPrefix: string): Promise<OrderResult[]>;
  /**
   * The fee and realised PnL of an order placed earlier whose figures were not known when it was
   * answered (`commission` null): from the venue's stream or a fresh look-up; null while still unknown.
   */
  orderFees?(
    account: string,
    order: Pick<OrderResult, 'symbol' | 'orderId' | 'executedQty'>,
  ): Promise<{ commission: string; realizedPnl: string } | null>;
  /** Open positions; `fresh` skips any answer the adapter keeps for a moment (a leg's check needs now). */
  positionRisk(account: string, fresh?: boolean): Promise<PositionRisk[]>;
  /** How many positions are open, when the venue can say so without a full positionRisk (paper can). */
  openPositionCount?(account: string): Promise<number>;
  balance(account: string): Promise<AccountBalance>;
  setLeverage(
    account: string,
    symbol: string,
    leverage: number,
  ): Promise<{ symbol: string; leverage: number }>;
  /**
   * A dry run of a market order on the venue's own tables (live adapters: exchangeInfo, the account's
   * leverage, brackets and taker rate); the paper exchange previews through its own engine instead.
   */
  previewOnVenue?(
    account: string,
    request: Pick<MarketOrderRequest, 'symbol' | 'side' | 'quoteAmount' | 'maxNotional'>,
  ): Promise<VenuePreview>;
  /**
   * Places a conditional order that rests on the venue. A refusal throws ExchangeError with the venue's
   * code (-2021 would fire at once, -4120 wrong endpoint, …); no clear answer throws OrderOutcomeUnknown
   * (look it up by its clientAlgoId before placing it again). A venue without conditional orders leaves
   * these four out: its legs then run in the app, on that venue's own mark price.
   */
  placeConditional?(account: string, request: ConditionalOrderRequest): Promise<ConditionalOrder>;
  /**
   * A conditional order by its client id, in whatever state; null only when the venue does not know it.
   * `type` is the leg's kind: a venue that keeps a position's stop, target and trailing stop in one slot
   * each (Bybit's trading-stop) finds the leg by it.
   */
  queryConditional?(
    account: string,
    symbol: string,
    clientAlgoId: string,
    type?: ConditionalType,
  ): Promise<ConditionalOrder | null>;
  /** Cancels a resting conditional order; null when the venue knows no open one by that id. */
  cancelConditional?(
    account: string,
    symbol: string,
    clientAlgoId: string,
    type?: ConditionalType,
  ): Promise<ConditionalOrder | null>;
  /**
   * The conditional orders resting on the account (on one symbol, when given). A leg held in a position's
   * slot, which carries no client id on the venue, comes back with `clientAlgoId` '' and is matched by
   * its type.
   */
  openConditionals?(account: string, symbol?: string): Promise<ConditionalOrder[]>;
  /** Events for one account; returns the disposer. */
  subscribe(account: string, handler: (event: ExchangeEvent) => void): () => void;
}

/**
 * A venue's live adapter (Binance USD-M, Bybit linear, OKX swap): the exchange adapter plus what the app
 * needs of a real venue, its name, its symbols' filters and its private stream.
 */
export interface LiveExchangeAdapter extends ExchangeAdapter {
  readonly venue: VenueName;
  /**
   * The symbol's filters on this venue, in the base asset (OKX's contracts turned into coins): lot step,
   * minimum quantity and notional, tick. A symbol the venue does not list is ExchangeError -1121 with a
   * message naming the venue, before anything is sent.
   */
  filters(symbol: string): Promise<SymbolFilters>;
  /**
   * Keeps the account's private stream open while someone watches it (its positions socket); every fill,
   * position change and conditional order change reaches the subscribers in the shapes of ./events. Returns
   * the disposer; the stream closes when the last watcher leaves.
   */
  watch(account: string): () => void;
  /** Accounts whose private stream is connected now. */
  streaming(): string[];
  /** Closes every private stream (shutdown). */
  stopStreams(): Promise<void>;
  /** Every account's events through this adapter (its fills, and each watched account's stream). */
  subscribeAll(handler: (account: string, event: ExchangeEvent) => void): () => void;
}

/** What a market order would do on a venue, by the same sizing as the order itself. */
export interface VenuePreview {
  quantity: Decimal;
  price: Decimal;
  fee: Decimal;
  sizing: OrderSizing;
  minNotional: Decimal;
  stepSize: Decimal;
  marginAdded: Decimal;
  leverage: number;
  /** Isolated-margin estimate for the resulting position; null when the order closes it. */
  liquidationPrice: Decimal | null;
}
