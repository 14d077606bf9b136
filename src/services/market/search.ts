import { QUOTE, SYMBOLS, type SymbolInfo } from '../../contracts/symbols';

/**
 * docs/product.md §9 symbol search: prefix match over the fixed list. Tickers that start with the query come
 * first (in list order, i.e. by size), then names that start with it. `BTC/USDT` and `btcusdt` find BTC.
 */
export function searchSymbols(query: string, limit = 8): SymbolInfo[] {
  const q = query
    .trim()
    .toUpperCase()
    .replace(new RegExp(`/?${QUOTE}$`), '');
  if (q === '') return [];
  const byTicker = SYMBOLS.filter((s) => s.ticker.startsWith(q));
  const byName = SYMBOLS.filter((s) => !s.ticker.startsWith(q) && s.name.toUpperCase().startsWith(q));
  return [...byTicker, ...byName].slice(0, limit);
}
