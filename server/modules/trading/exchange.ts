/**
 * The exchange adapter, in Binance USD-M's own shapes so that the live adapter drops in beside the paper
 * one. One adapter instance serves many accounts; `account` is the user id for the paper exchange and
 * the user's key id for a live one.
 */

import type Decimal from 'decimal.js';
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
  type: 'MARKET';
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
    o: 'MARKET' | 'LIQUIDATION';
    q: string;
    ap: string;
    x: 'TRADE' | 'CALCULATED';
    X: 'FILLED';
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

export interface ExchangeAdapter {
  readonly kind: 'paper' | 'binance-usdm';
  placeMarketOrder(account: string, request: MarketOrderRequest): Promise<OrderResult>;
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
  /** A conditional order by its client id, in whatever state; null only when the venue does not know it. */
  queryConditional?(account: string, symbol: string, clientAlgoId: string): Promise<ConditionalOrder | null>;
  /** Cancels a resting conditional order; null when the venue knows no open one by that id. */
  cancelConditional?(account: string, symbol: string, clientAlgoId: string): Promise<ConditionalOrder | null>;
  /** The conditional orders resting on the account (on one symbol, when given). */
  openConditionals?(account: string, symbol?: string): Promise<ConditionalOrder[]>;
  /** Events for one account; returns the disposer. */
  subscribe(account: string, handler: (event: ExchangeEvent) => void): () => void;
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
