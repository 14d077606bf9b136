import Decimal from 'decimal.js';
import { describeSizing, sizeOrder as sizeShared } from '../../../../src/contracts/sizing';
import { pairOf } from '../../../../src/contracts/trading';
import { ExchangeError } from '../exchange-error';
import type { MarketOrderRequest, OrderSizing } from '../exchange';
import type { SymbolFilters } from '../paper/filters';
import { REFUSAL_CODE } from '../paper/orders';

/**
 * A USDT total as an order quantity for one symbol on a live venue: the product's one sizing rule
 * (`sizeOrder` in src/contracts/sizing: nearest step, the minimum always reachable, never above the
 * fat-finger cap) on the venue's own filters, with the sentence that says how the order differs from
 * the amount asked. What the free margin pays for is the exchange's call (-2019), since its account is
 * not ours to mirror. Refusals carry the same sentences as paper.
 */
export function sizeLiveOrder(
  request: Pick<MarketOrderRequest, 'symbol' | 'quoteAmount' | 'maxNotional'>,
  price: Decimal,
  filters: SymbolFilters,
): { quantity: Decimal; sizing: OrderSizing } {
  const sizing = sizeShared({
    amount: request.quoteAmount,
    price,
    filters,
    caps: { maxNotional: request.maxNotional ?? null },
  });
  const note = describeSizing(pairOf(request.symbol), sizing);
  if (!sizing.ok) throw new ExchangeError(REFUSAL_CODE[sizing.refusal], note ?? 'Order refused.');
  return {
    quantity: new Decimal(sizing.quantity.toString()),
    sizing: { requested: sizing.requested.toString(), adjustment: sizing.adjustment, note },
  };
}
