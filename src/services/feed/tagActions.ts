import { contractSymbolOf, findSymbol } from '../../contracts/symbols';

/**
 * The `symbol` line a `$TICKER` tag runs when clicked (or pressed, or tapped): the coin's own pair, or
 * its 1000-unit contract (`$PEPE` → `symbol 1000pepe`); null for a coin not traded here.
 */
export function tagSymbolLine(ticker: string): string | null {
  const symbol = contractSymbolOf(ticker);
  const info = symbol === undefined ? undefined : findSymbol(symbol);
  return info === undefined ? null : `symbol ${info.ticker.toLowerCase()}`;
}
