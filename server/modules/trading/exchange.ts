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

export type ExchangeEvent = AccountUpdateEvent | OrderTradeUpdateEvent;

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
  positionRisk(account: string): Promise<PositionRisk[]>;
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
