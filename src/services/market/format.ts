/** docs/product.md §9: prices with 4 decimals; very small prices keep 4 significant digits. */
export function formatPrice(price: number): string {
  if (!Number.isFinite(price) || price === 0) return '$--';
  const decimals = Math.abs(price) >= 0.01 ? 4 : Math.min(10, 3 - Math.floor(Math.log10(Math.abs(price))));
  return price.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

/** Decimals the chart's price scale shows for a symbol trading around `price`. */
export function pricePrecision(price: number): number {
  if (!Number.isFinite(price) || price <= 0) return 2;
  if (price >= 1_000) return 2;
  if (price >= 1) return 4;
  return Math.min(10, 4 - Math.floor(Math.log10(price)));
}
