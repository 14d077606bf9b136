/** Decimals the chart's price scale shows for a symbol trading around `price`. */
export function pricePrecision(price: number): number {
  if (!Number.isFinite(price) || price <= 0) return 2;
  if (price >= 1_000) return 2;
  if (price >= 1) return 4;
  return Math.min(10, 4 - Math.floor(Math.log10(price)));
}
