import type { SizingAdjustment } from '../../../../src/contracts/sizing';

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
