import type { ExchangeAdapter } from './exchange';
import { filtersFor, type SymbolFilters } from './paper/filters';

/**
 * The smallest order an adapter's venue takes on `symbol`, in USDT: its minimum notional, or its
 * minimum quantity at `price` when that is worth more (rounded up to the cent). A live venue's own
 * filters; the paper exchange's for paper. Null when the venue does not list the symbol or did not say.
 */
export async function minimumOrderOf(
  adapter: ExchangeAdapter,
  symbol: string,
  price: number | undefined,
): Promise<number | null> {
  const live = adapter as ExchangeAdapter & { filters?(symbol: string): Promise<SymbolFilters> };
  const f =
    live.filters === undefined
      ? filtersFor(symbol, price ?? 1)
      : await live.filters(symbol).catch(() => undefined);
  if (f === undefined) return null;
  const byQuantity = price === undefined ? 0 : f.minQty.mul(price).toNumber();
  return Math.ceil(Math.max(f.minNotional.toNumber(), byQuantity) * 100) / 100;
}
