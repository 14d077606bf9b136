import { priceDecimals } from '../../contracts/ticks';

/** docs/product.md §9: "$--" stands for a zero or missing number. */
export const MISSING = '$--';

const fixed = (value: number, decimals: number): string =>
  value.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });

const missing = (value: number | null | undefined): value is null | undefined =>
  value === null || value === undefined || !Number.isFinite(value) || value === 0;

/** Amounts (margin, PnL, fees): 2 decimals with thousands separators; "$--" for zero or missing. */
export function formatAmount2(value: number | null | undefined): string {
  return missing(value) ? MISSING : fixed(value, 2);
}

/** Like {@link formatAmount2} with an explicit sign, for profit and loss. */
export function formatPnl(value: number | null | undefined): string {
  if (missing(value)) return MISSING;
  return `${value > 0 ? '+' : ''}${fixed(value, 2)}`;
}

/**
 * A price of `symbol` (`BTC/USDT` or `BTCUSDT`) at the symbol's own tick, with thousands separators:
 * BTC 100,771.0, ZIL 0.02305; "$--" for zero or missing. Every price the product shows goes through it.
 */
export function formatPrice(symbol: string, value: number | null | undefined): string {
  if (missing(value)) return MISSING;
  return fixed(value, priceDecimals(symbol.replace('/', ''), value));
}

/** Position sizes: as many decimals as the size has (up to 8), never rounded to zero. */
export function formatSize(value: number | null | undefined): string {
  if (missing(value)) return MISSING;
  return value.toLocaleString('en-US', { maximumFractionDigits: 8 });
}

/** Green for a gain, red for a loss, nothing for zero or missing. */
export function pnlTone(value: number | null | undefined): 'gain' | 'loss' | 'flat' {
  if (missing(value)) return 'flat';
  return value > 0 ? 'gain' : 'loss';
}

/** docs/product.md §9: seconds under 60, minutes under 3600, otherwise hours (`12s`, `4m`, `2h`). */
export function formatAgo(elapsedMs: number): string {
  const seconds = Math.max(0, Math.floor(elapsedMs / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  return `${Math.floor(seconds / 3600)}h`;
}

/** "Updated 12s ago", or null before the first load. */
export function updatedLabel(updatedAt: number | null, now: number): string | null {
  return updatedAt === null ? null : `Updated ${formatAgo(now - updatedAt)} ago`;
}
