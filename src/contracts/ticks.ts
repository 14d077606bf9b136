import Decimal from 'decimal.js';

/**
 * Price ticks (Binance USD-M PRICE_FILTER.tickSize), shared by the paper exchange's filters and the
 * browser's price formatting, so a price reads on the screen as the venue quotes it: BTC 100,771.0,
 * ZIL 0.02305. Symbols without a bundled tick get one from their price.
 */
const TICKS: Readonly<Record<string, string>> = {
  BTCUSDT: '0.10',
  ETHUSDT: '0.01',
  BNBUSDT: '0.010',
  SOLUSDT: '0.0100',
  XRPUSDT: '0.0001',
  DOGEUSDT: '0.00001',
  ADAUSDT: '0.00010',
  LINKUSDT: '0.001',
  LTCUSDT: '0.01',
  BCHUSDT: '0.01',
  ZILUSDT: '0.00001',
  '1000PEPEUSDT': '0.0000001',
};

/** A tick of four significant digits below the price's leading digit. */
function defaultTick(price: Decimal.Value): Decimal {
  const exponent = Math.floor(Math.log10(Math.max(new Decimal(price).abs().toNumber(), 1e-8)));
  return new Decimal(10).pow(exponent - 4);
}

/** The price tick of `symbol` (`BTCUSDT`); `referencePrice` sizes the tick of a symbol without a bundled one. */
export function tickSizeFor(symbol: string, referencePrice: Decimal.Value = 1): Decimal {
  const known = TICKS[symbol.toUpperCase()];
  return known === undefined ? defaultTick(referencePrice) : new Decimal(known);
}

/** How many decimals a price of `symbol` around `referencePrice` shows: its tick's (BTC 1, ZIL 5). */
export function priceDecimals(symbol: string, referencePrice: Decimal.Value = 1): number {
  return Math.max(0, tickSizeFor(symbol, referencePrice).decimalPlaces());
}
