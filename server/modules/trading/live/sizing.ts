import Decimal from 'decimal.js';
import { describeSizing, sizeOrder as sizeShared } from '../../../../src/contracts/sizing';
import { pairOf } from '../../../../src/contracts/trading';
import { ExchangeError } from '../exchange-error';
import type { MarketOrderRequest } from '../exchange';
import type { SymbolFilters } from '../paper/filters';
import { REFUSAL_CODE } from '../paper/orders';

/**
 * A USDT total as an order quantity for one symbol on a live venue: the product's one sizing rule
 * (`sizeOrder` in src/contracts/sizing: nearest step, the minimum always reachable, never above the
 * fat-finger cap) on the venue's own filters. What the free margin pays for is the exchange's call
 * (-2019), since its account is not ours to mirror. Refusals carry the same sentences as paper.
 */
export function sizeLiveOrder(request: MarketOrderRequest, price: Decimal, filters: SymbolFilters): Decimal {
  const sizing = sizeShared({
    amount: request.quoteAmount,
    price,
    filters,
    caps: { maxNotional: request.maxNotional ?? null },
  });
  if (!sizing.ok) {
    throw new ExchangeError(
      REFUSAL_CODE[sizing.refusal],
      describeSizing(pairOf(request.symbol), sizing) ?? 'Order refused.',
    );
  }
  return new Decimal(sizing.quantity.toString());
}
