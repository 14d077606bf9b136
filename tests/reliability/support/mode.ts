/**
 * The short version CI runs (`RELIABILITY_SHORT=1`, which `npm run test:reliability -- --short` sets):
 * one kill per scenario instead of three.
 */
export const SHORT = process.env.RELIABILITY_SHORT === '1';

/** A whole number in [min, max], for kill points that differ from run to run. */
export function between(min: number, max: number): number {
  return min + Math.floor(Math.random() * (max - min + 1));
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Up to `n` items of `items`, picked at random. */
export function sample<T>(items: readonly T[], n: number): T[] {
  return items
    .map((item) => ({ item, order: Math.random() }))
    .sort((a, b) => a.order - b.order)
    .slice(0, n)
    .map(({ item }) => item);
}
