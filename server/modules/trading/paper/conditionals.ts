import Decimal from 'decimal.js';
import type { ConditionalOrder, ConditionalStatus } from '../exchange';

/**
 * A paper account's conditional orders (stops, targets, trailing stops) and the ledger events that change
 * them, folded by `applyEvent` like the rest of the account: a resting order, the best mark a trailing
 * stop has seen, and how each one ended are all ledger rows, so a restart and a second process see the
 * same orders in the same states.
 */

/** A conditional order as the account holds it: the venue's view, and what the paper venue needs besides. */
export interface PaperConditional extends ConditionalOrder {
  /**
   * TRAILING_STOP_MARKET: the best mark since it armed (the highest for a SELL, the lowest for a BUY);
   * null until it armed (it has an activatePrice the mark has not reached yet).
   */
  extreme: string | null;
  /** Why it ended without firing, when it did. */
  reason: string | null;
}

/** What a placement writes: the order as it is when it starts resting. */
export type PlacedConditional = Omit<PaperConditional, 'status' | 'actualOrderId' | 'updateTime' | 'reason'>;

/** The ways a resting order ends without a fill of its own. */
export type EndedWithoutFill = Extract<ConditionalStatus, 'CANCELED' | 'EXPIRED' | 'REJECTED'>;

export type ConditionalEvent =
  | { type: 'conditional'; order: PlacedConditional; at: number }
  /** A trailing stop armed, or the mark went past its best since: the new best. */
  | { type: 'conditional-trail'; algoId: string; symbol: string; extreme: string; at: number }
  /** Cancelled by its owner, or refused when it fired (nothing was left to reduce). */
  | {
      type: 'conditional-end';
      algoId: string;
      symbol: string;
      status: Extract<EndedWithoutFill, 'CANCELED' | 'REJECTED'>;
      reason: string | null;
      at: number;
    };

/** An account's conditional orders: those resting, and the latest that ended. Never changed in place. */
export interface ConditionalBook {
  /** By algoId, in the order they were placed. */
  resting: ReadonlyMap<string, PaperConditional>;
  /** The latest ENDED_KEPT orders that ended, the oldest first: what a look-up of an old id finds. */
  ended: readonly PaperConditional[];
}

/** How many ended orders an account keeps for look-ups (a snapshot holds them all). */
export const ENDED_KEPT = 50;

/**
 * How an order resting on a symbol ends when the position there goes to zero: Binance's algo service
 * reports an order the system itself cancelled (its position closed) as EXPIRED, one its owner cancelled
 * as CANCELED.
 */
export const POSITION_CLOSED_STATUS: EndedWithoutFill = 'EXPIRED';

export const EMPTY_BOOK: ConditionalBook = { resting: new Map(), ended: [] };

/** The venue's view of an order (the answer, a look-up, ALGO_UPDATE): without the paper venue's fields. */
export function toConditionalOrder(order: PaperConditional): ConditionalOrder {
  const { extreme: _extreme, reason: _reason, ...venue } = order;
  return venue;
}

export function placeIn(book: ConditionalBook, order: PlacedConditional, at: number): ConditionalBook {
  const resting = new Map(book.resting);
  resting.set(order.algoId, { ...order, status: 'NEW', actualOrderId: null, updateTime: at, reason: null });
  return { ...book, resting };
}

export function trailIn(book: ConditionalBook, algoId: string, extreme: string, at: number): ConditionalBook {
  const order = book.resting.get(algoId);
  if (!order) return book;
  const resting = new Map(book.resting);
  resting.set(algoId, { ...order, extreme, updateTime: at });
  return { ...book, resting };
}

/** Moves a resting order to the ended ones, with the state it ended in. */
export function endIn(
  book: ConditionalBook,
  algoId: string,
  end: Pick<PaperConditional, 'status' | 'reason' | 'actualOrderId'>,
  at: number | undefined,
): ConditionalBook {
  const order = book.resting.get(algoId);
  if (!order) return book;
  const resting = new Map(book.resting);
  resting.delete(algoId);
  const ended = [...book.ended, { ...order, ...end, updateTime: at ?? order.updateTime }];
  return { resting, ended: ended.length > ENDED_KEPT ? ended.slice(-ENDED_KEPT) : ended };
}

/** Ends every resting order on `symbol` (all of them when null) with `status`. */
export function endAllIn(
  book: ConditionalBook,
  symbol: string | null,
  status: EndedWithoutFill,
  reason: string,
  at: number | undefined,
): ConditionalBook {
  let next = book;
  for (const order of book.resting.values()) {
    if (symbol === null || order.symbol === symbol) {
      next = endIn(next, order.algoId, { status, reason, actualOrderId: null }, at);
    }
  }
  return next;
}

/** The reason an order gives when its position closed under it. */
export const positionClosedReason = (symbol: string) =>
  `The position on ${symbol} was closed: nothing is left to reduce.`;

/** What a mark means for a resting order: fire it, record a new best for a trailing stop, or nothing. */
export type ConditionalStep = { kind: 'fire' } | { kind: 'trail'; extreme: Decimal } | null;

/**
 * The step the mark calls for. A SELL stop fires at or below its trigger, a SELL take-profit at or above
 * (a BUY the other way round). A SELL trailing stop arms when the mark reaches its activatePrice, then
 * follows the highest mark and fires once the mark is `callbackRate` % below it (a BUY: the lowest mark,
 * and % above it).
 */
export function stepAt(order: PaperConditional, mark: Decimal): ConditionalStep {
  const sell = order.side === 'SELL';
  if (order.type !== 'TRAILING_STOP_MARKET') {
    if (order.triggerPrice === null) return null;
    const trigger = new Decimal(order.triggerPrice);
    const fallsTo = order.type === 'STOP_MARKET' ? sell : !sell;
    return (fallsTo ? mark.lte(trigger) : mark.gte(trigger)) ? { kind: 'fire' } : null;
  }
  if (order.extreme === null) {
    if (order.activatePrice === null) return { kind: 'trail', extreme: mark };
    const activate = new Decimal(order.activatePrice);
    return (sell ? mark.gte(activate) : mark.lte(activate)) ? { kind: 'trail', extreme: mark } : null;
  }
  const extreme = new Decimal(order.extreme);
  if (sell ? mark.gt(extreme) : mark.lt(extreme)) return { kind: 'trail', extreme: mark };
  const level = firesAt(order, extreme);
  return (sell ? mark.lte(level) : mark.gte(level)) ? { kind: 'fire' } : null;
}

/** The mark a trailing stop whose best so far is `extreme` fires at. */
export function firesAt(order: PaperConditional, extreme: Decimal): Decimal {
  const rate = new Decimal(order.callbackRate ?? 0).div(100);
  return order.side === 'SELL' ? extreme.mul(new Decimal(1).minus(rate)) : extreme.mul(rate.plus(1));
}

/**
 * The orders whose state the step from `before` to `after` changed, in their new state: placed (NEW) or
 * ended (FINISHED, CANCELED, EXPIRED, REJECTED). A trailing stop's new best is not a change of state.
 */
export function statusChanges(before: ConditionalBook, after: ConditionalBook): PaperConditional[] {
  if (before === after) return [];
  const changed: PaperConditional[] = [];
  for (const order of after.resting.values()) {
    if (!before.resting.has(order.algoId)) changed.push(order);
  }
  const endedNow = new Set<string>();
  for (const order of before.resting.values()) {
    if (!after.resting.has(order.algoId)) endedNow.add(order.algoId);
  }
  if (endedNow.size > 0) {
    for (const order of after.ended) if (endedNow.has(order.algoId)) changed.push(order);
  }
  return changed;
}
