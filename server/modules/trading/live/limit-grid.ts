import Decimal from 'decimal.js';
import type { LimitOrderRequest, OrderBookDepth, RestingOrder } from '../exchange';
import { ExchangeError, exchangeErrors, type OrderOutcomeUnknown } from '../exchange-error';
import type { SymbolFilters } from '../paper/filters';

/**
 * A limit order's price on the symbol's tick (down for a buy, up for a sell: never worse than asked) and
 * its quantity down to the lot step; refused before anything is sent when the quantity rounds below the
 * venue's minimum.
 */
export function onGrid(
  request: Pick<LimitOrderRequest, 'side' | 'price' | 'quantity'>,
  filters: Pick<SymbolFilters, 'tickSize' | 'stepSize' | 'minQty'>,
): { price: Decimal; quantity: Decimal } {
  const rounding = request.side === 'BUY' ? Decimal.ROUND_DOWN : Decimal.ROUND_UP;
  const price = new Decimal(request.price).toNearest(filters.tickSize, rounding);
  const quantity = new Decimal(request.quantity).toNearest(filters.stepSize, Decimal.ROUND_DOWN);
  if (!price.gt(0)) throw new ExchangeError(-4014, 'The limit price is below one tick of this symbol.');
  if (!quantity.gt(0) || quantity.lt(filters.minQty)) throw exchangeErrors.quantityTooSmall();
  return { price, quantity };
}

/** Whether an order still rests on the venue (may fill or be cancelled). */
export const isResting = (o: Pick<RestingOrder, 'status'>): boolean =>
  o.status === 'NEW' || o.status === 'PARTIALLY_FILLED';

/**
 * After a placement whose outcome is unknown: the order looked up by its client id (a few times, as it may
 * land late), never sent again. Its answer when found; OrderOutcomeUnknown again when every look-up came
 * back empty or failed, for the caller to look up later.
 */
export async function lookUpAfterUnknown<T>(
  unknown: OrderOutcomeUnknown,
  find: () => Promise<T | null>,
  sleep: (ms: number) => Promise<void>,
  delaysMs: readonly number[] = [50, 200, 500],
): Promise<T> {
  for (const ms of delaysMs) {
    await sleep(ms);
    const found = await find().catch(() => null);
    if (found !== null) return found;
  }
  throw unknown;
}

export const timerSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Book levels `[price, size]` (size in the base asset), best first, as decimal text. */
export function depthOf(
  bids: readonly (readonly [string, string])[],
  asks: readonly (readonly [string, string])[],
  sizeFactor: Decimal.Value = 1,
): OrderBookDepth {
  const scale = (rows: readonly (readonly [string, string])[]) =>
    rows.map(([p, q]) => [p, new Decimal(q).mul(sizeFactor).toFixed()] as [string, string]);
  return { bids: scale(bids), asks: scale(asks) };
}
