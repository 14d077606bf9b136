/**
 * The exchange adapter, in Binance USD-M's own shapes so that the live adapters (Binance, Bybit, OKX) drop
 * in beside the paper one: each venue's adapter reads its own answers at its edge and hands back these
 * shapes, symbols in Binance's spelling (`BTCUSDT`) and quantities in the base asset. One adapter
 * instance serves many accounts; `account` is the user id for the paper exchange and `userId:keyId` for
 * a live one.
 */

import type Decimal from 'decimal.js';
import type { VenueName } from '../../../src/contracts/venues';
import type { SymbolFilters } from './paper/filters';
import type { SizingAdjustment } from '../../../src/contracts/sizing';

export type OrderSide = 'BUY' | 'SELL';

export interface MarketOrderRequest {
  symbol: string;
  side: OrderSide;
  /** USDT notional to spend, sized to a quantity by the shared `sizeOrder` (src/contracts/sizing.ts). */
  quoteAmount: string;
  /** The user's fat-finger cap: the order is never worth more (rounded down to a step within it). */
  maxNotional?: string;
  /** `^[.A-Z:/a-z0-9_-]{1,36}$`; unique per account among its orders. */
  newClientOrderId: string;
}

/**
 * A limit order, sized and priced by the caller: `price` on the symbol's tick, `quantity` in the base
 * asset on its step. `GTX` is Binance's name for post-only (Bybit `PostOnly`, OKX `ordType=post_only`).
 */
export interface LimitOrderRequest {
  symbol: string;
  side: OrderSide;
  price: string;
  quantity: string;
  timeInForce: 'GTC' | 'IOC' | 'GTX';
  reduceOnly?: boolean;
  /** `^[.A-Z:/a-z0-9_-]{1,36}$`; unique per account among its orders. */
  newClientOrderId: string;
}

/** A limit order resting on the venue (its open-orders row, or the answer of its cancel). */
export interface RestingOrder {
  orderId: string;
  clientOrderId: string;
  symbol: string;
  side: OrderSide;
  price: string;
  origQty: string;
  executedQty: string;
  timeInForce: 'GTC' | 'IOC' | 'GTX';
  reduceOnly: boolean;
  status: VenueOrderStatus;
  /** When the venue took it, in ms. */
  time: number;
  updateTime: number;
}

/**
 * A venue's order book, best levels first: `[price, size]` as decimal text, the size in the base asset
 * (OKX's contracts turned into coins).
 */
export interface OrderBookDepth {
  bids: [string, string][];
  asks: [string, string][];
}

/** An order's state on the venue, as Binance names it. */
export type VenueOrderStatus =
  'NEW' | 'PARTIALLY_FILLED' | 'FILLED' | 'CANCELED' | 'REJECTED' | 'EXPIRED' | 'EXPIRED_IN_MATCH';

/** The states an order never leaves: whatever it executed by then is all it will. */
export const FINAL_STATUSES: ReadonlySet<VenueOrderStatus> = new Set([
  'FILLED',
  'CANCELED',
  'REJECTED',
  'EXPIRED',
  'EXPIRED_IN_MATCH',
]);

/**
 * `POST /fapi/v1/order` with newOrderRespType=RESULT (or the order looked up by its client id), plus the
 * fill's fee and realised PnL. A market order usually answers FILLED; on a thin book it may end
 * PARTIALLY_FILLED then EXPIRED, and a look-up soon after sending may still see it NEW: `executedQty` is
 * what it did, never `origQty`.
 */
export interface OrderResult {
  orderId: string;
  clientOrderId: string;
  symbol: string;
  side: OrderSide;
  type: 'MARKET' | 'LIMIT';
  status: VenueOrderStatus;
  /** The quantity asked (Binance's origQty). */
  origQty?: string;
  reduceOnly: boolean;
  executedQty: string;
  avgPrice: string;
  cumQuote: string;
  /** The fill's fee and realised PnL; null when the venue has not told them yet (unknown, never 0). */
  commission: string | null;
  realizedPnl: string | null;
  updateTime: number;
  /** Ours, when the order was just placed from a USDT amount: that amount and how the fill differs. */
  sizing?: OrderSizing;
  /** What the venue says it spent on the order itself (OKX's outTime − inTime), when it says. */
  venueOwnMs?: number;
  /** Ours: how long the placement call took, the venue's look-ups until final included. */
  venueMs?: number;
}

export interface OrderSizing {
  requested: string;
  adjustment: SizingAdjustment;
  /** The sentence that says why the fill is not worth exactly what was asked; null when it is. */
  note: string | null;
}

/** `GET /fapi/v3/positionRisk` row (one-way mode: positionSide BOTH). */
export interface PositionRisk {
  symbol: string;
  positionSide: 'BOTH';
  positionAmt: string;
  entryPrice: string;
  breakEvenPrice: string;
  markPrice: string;
  unRealizedProfit: string;
  liquidationPrice: string;
  isolatedMargin: string;
  notional: string;
  initialMargin: string;
  maintMargin: string;
  leverage: number;
  marginType: 'isolated' | 'cross';
  updateTime: number;
}

/** `GET /fapi/v3/balance` row for USDT. */
export interface AccountBalance {
  asset: 'USDT';
  balance: string;
  availableBalance: string;
  crossUnPnl: string;
  updateTime: number;
}

/** User-data stream events, as Binance sends them. */
export interface AccountUpdateEvent {
  e: 'ACCOUNT_UPDATE';
  E: number;
  T: number;
  a: {
    m: 'ORDER' | 'LIQUIDATION' | 'DEPOSIT' | 'ADJUSTMENT';
    B: { a: 'USDT'; wb: string; cw: string; bc: string }[];
    P: {
      s: string;
      pa: string;
      ep: string;
      bep: string;
      cr: string;
      up: string;
      mt: 'isolated';
      iw: string;
      ps: 'BOTH';
    }[];
  };
}

export interface OrderTradeUpdateEvent {
  e: 'ORDER_TRADE_UPDATE';
  E: number;
  T: number;
  o: {
    s: string;
    c: string;
    S: OrderSide;
    o: 'MARKET' | 'LIMIT' | 'LIQUIDATION';
    q: string;
    ap: string;
    /** A limit order also tells when it starts resting (NEW) and when it ends without a fill. */
    x: 'TRADE' | 'CALCULATED' | 'NEW' | 'CANCELED' | 'EXPIRED';
    X: 'FILLED' | 'NEW' | 'CANCELED' | 'EXPIRED';
    /** A limit order's price and time in force (Binance's `p` and `f`). */
    p?: string;
    f?: 'GTC' | 'IOC' | 'GTX';
    /** Ours, on a paper fill: the order rested on the book before it filled (a maker fill). */
    rested?: boolean;
    i: string;
    l: string;
    z: string;
    L: string;
    /** Commission and realised profit of this trade; null on our own notice of a fill whose are not known yet. */
    n: string | null;
    N: 'USDT';
    rp: string | null;
    R: boolean;
  };
}

/**
 * A conditional order's state on the venue, as Binance's algo service names it: NEW (resting), TRIGGERING,
 * TRIGGERED (its market order was sent: `actualOrderId`), FINISHED (that order is done), or it ended
 * without firing: CANCELED, EXPIRED, REJECTED.
 */
export type ConditionalStatus =
  'NEW' | 'TRIGGERING' | 'TRIGGERED' | 'FINISHED' | 'CANCELED' | 'EXPIRED' | 'REJECTED';

/** The conditional states that still rest on the venue (may fire). */
export const RESTING_CONDITIONALS: ReadonlySet<ConditionalStatus> = new Set(['NEW', 'TRIGGERING']);
/** The conditional states of an order that fired. */
export const FIRED_CONDITIONALS: ReadonlySet<ConditionalStatus> = new Set(['TRIGGERED', 'FINISHED']);

export type ConditionalType = 'STOP_MARKET' | 'TAKE_PROFIT_MARKET' | 'TRAILING_STOP_MARKET';

/**
 * `POST /fapi/v1/algoOrder` (algoType CONDITIONAL, workingType MARK_PRICE): a stop or a target on the
 * whole position (`closePosition`, no quantity), or a trailing stop reduce-only with its quantity.
 */
export interface ConditionalOrderRequest {
  symbol: string;
  /** The side of the order it sends when it fires: SELL protects a long. */
  side: OrderSide;
  type: ConditionalType;
  /** STOP_MARKET and TAKE_PROFIT_MARKET: the mark price that fires it. */
  triggerPrice?: string;
  /** STOP_MARKET and TAKE_PROFIT_MARKET: close whatever is open when it fires. */
  closePosition?: boolean;
  /** TRAILING_STOP_MARKET: the quantity, reduce-only. */
  quantity?: string;
  /** TRAILING_STOP_MARKET: the callback in % (0.1–10). */
  callbackRate?: string;
  /** TRAILING_STOP_MARKET: the mark that arms it (none: armed at once). */
  activatePrice?: string;
  /** `^[.A-Z:/a-z0-9_-]{1,36}$`, unique among the account's open conditional orders: a retry is safe. */
  clientAlgoId: string;
}

/** A conditional order as the venue holds it (its answer, a look-up, an open-orders row, ALGO_UPDATE). */
export interface ConditionalOrder {
  algoId: string;
  clientAlgoId: string;
  symbol: string;
  side: OrderSide;
  type: ConditionalType;
  status: ConditionalStatus;
  triggerPrice: string | null;
  quantity: string | null;
  closePosition: boolean;
  callbackRate: string | null;
  activatePrice: string | null;
  /** Once it fired: the market order it sent. */
  actualOrderId: string | null;
  updateTime: number;
}

/** `ALGO_UPDATE` on the user-data stream, read into our shape: a conditional order changed state. */
export interface ConditionalUpdateEvent {
  e: 'ALGO_UPDATE';
  E: number;
  T: number;
  order: ConditionalOrder;
  /** Why it was refused or expired, when the venue says. */
  reason: string | null;
}

export type ExchangeEvent = AccountUpdateEvent | OrderTradeUpdateEvent | ConditionalUpdateEvent;

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
   * position change and conditional order change reaches the subscribers in the shapes above. Returns
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
