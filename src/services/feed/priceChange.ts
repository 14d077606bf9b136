/**
 * The % change of an asset since its signal arrived (docs/product.md §2 footer tags): the live price from the
 * price socket against the signal's `initial_prices`.
 */

/** Percent change from `initial` to `current`, or null when either is unknown or the start is not positive. */
export function changeSince(initial: number | undefined, current: number | undefined): number | null {
  if (initial === undefined || current === undefined) return null;
  if (!Number.isFinite(initial) || !Number.isFinite(current) || initial <= 0) return null;
  return ((current - initial) / initial) * 100;
}

/** `+1.23%`, `-0.45%`, `0.00%`; `—` while unknown. A change that rounds to zero shows no sign. */
export function formatChange(change: number | null): string {
  if (change === null) return '—';
  const text = Math.abs(change).toFixed(2);
  if (text === '0.00') return '0.00%';
  return `${change > 0 ? '+' : '-'}${text}%`;
}

/** Which way it moved, for colour: up, down or flat (also when unknown). */
export function changeDirection(change: number | null): 'up' | 'down' | 'flat' {
  if (change === null || Math.abs(change) < 0.005) return 'flat';
  return change > 0 ? 'up' : 'down';
}
