import Decimal from 'decimal.js';
import type { OrderResult, OrderSide, RestingOrder } from '../exchange';
import { ZERO } from './math';

/**
 * A paper account's limit orders and the ledger events that change them, folded by `applyEvent` like the
 * rest of the account. A resting order holds `reserved` USDT out of the free cash (its margin at its price
 * and its maker fee) until it fills or ends: the fill, or the end, is one ledger row, so a restart and a
 * second process see the same book, and an order fills once (the second writer's row is refused).
 */

/** Binance's names: `GTX` is post-only. An IOC never rests. */
export type LimitTimeInForce = 'GTC' | 'IOC' | 'GTX';

/** A limit order resting on the paper book. Amounts are decimal strings. */
export interface PaperLimit {
  orderId: string;
  clientOrderId: string;
  symbol: string;
  side: OrderSide;
  price: string;
  quantity: string;
  timeInForce: Exclude<LimitTimeInForce, 'IOC'>;
  reduceOnly: boolean;
  /** Taken from the free cash while it rests; given back when it fills or ends. */
  reserved: string;
  time: number;
  updateTime: number;
}

export type LimitEndStatus = 'FILLED' | 'CANCELED' | 'EXPIRED';

export interface EndedLimit extends PaperLimit {
  status: LimitEndStatus;
  reason: string | null;
}

/** Those resting (by orderId, in the order they were placed), and the latest that ended. */
export interface LimitBook {
  resting: ReadonlyMap<string, PaperLimit>;
  ended: readonly EndedLimit[];
}

export const EMPTY_LIMITS: LimitBook = { resting: new Map(), ended: [] };

/** How many ended orders an account keeps for look-ups by client id. */
export const LIMITS_ENDED_KEPT = 50;

export type LimitEvent =
  | { type: 'limit'; order: PaperLimit; at: number }
  /** Cancelled by its owner, or ended by the venue (its fill could no longer be booked). */
  | {
      type: 'limit-end';
      orderId: string;
      symbol: string;
      status: Exclude<LimitEndStatus, 'FILLED'>;
      reason: string | null;
      at: number;
    };

export function restIn(book: LimitBook, order: PaperLimit): LimitBook {
  return { ...book, resting: new Map(book.resting).set(order.orderId, order) };
}

/** Moves a resting order to the ended ones; `released` is the cash it held. */
export function endLimitIn(
  book: LimitBook,
  orderId: string,
  status: LimitEndStatus,
  reason: string | null,
  at: number | undefined,
): { book: LimitBook; released: Decimal } {
  const order = book.resting.get(orderId);
  if (!order) return { book, released: ZERO };
  const resting = new Map(book.resting);
  resting.delete(orderId);
  const ended = [...book.ended, { ...order, status, reason, updateTime: at ?? order.updateTime }];
  return {
    book: { resting, ended: ended.length > LIMITS_ENDED_KEPT ? ended.slice(-LIMITS_ENDED_KEPT) : ended },
    released: new Decimal(order.reserved),
  };
}

/** The cash every resting order holds. */
export function reservedIn(book: LimitBook): Decimal {
  let total = ZERO;
  for (const order of book.resting.values()) total = total.plus(order.reserved);
  return total;
}

/** A buy crosses when the market trades at or below its price, a sell at or above. */
export function crosses(side: OrderSide, price: Decimal, market: Decimal): boolean {
  return side === 'BUY' ? market.lte(price) : market.gte(price);
}

/** The better of the limit and the market for the order's side: what a crossing order fills at. */
export function betterOf(side: OrderSide, limit: Decimal, market: Decimal): Decimal {
  return side === 'BUY' ? Decimal.min(limit, market) : Decimal.max(limit, market);
}

/** The venue's open-orders row (or a cancel's answer) for a paper limit order. */
export function toRestingOrder(order: PaperLimit | EndedLimit): RestingOrder {
  return {
    orderId: order.orderId,
    clientOrderId: order.clientOrderId,
    symbol: order.symbol,
    side: order.side,
    price: order.price,
    origQty: order.quantity,
    executedQty: 'status' in order && order.status === 'FILLED' ? order.quantity : '0',
    timeInForce: order.timeInForce,
    reduceOnly: order.reduceOnly,
    status: 'status' in order ? order.status : 'NEW',
    time: order.time,
    updateTime: order.updateTime,
  };
}

/** The order's answer while it rests or once it ended without a fill: nothing executed. */
export function unfilledResult(order: PaperLimit | EndedLimit, status = toRestingOrder(order).status) {
  const result: OrderResult = {
    orderId: order.orderId,
    clientOrderId: order.clientOrderId,
    symbol: order.symbol,
    side: order.side,
    type: 'LIMIT',
    status,
    origQty: order.quantity,
    reduceOnly: order.reduceOnly,
    executedQty: '0',
    avgPrice: '0',
    cumQuote: '0',
    commission: '0',
    realizedPnl: '0',
    updateTime: order.updateTime,
  };
  return result;
}
