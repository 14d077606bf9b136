import type { PriceItem } from '../../../src/contracts/market';
import { contractOf } from '../analysis/assets';
import type { Disposer } from './news.types';

/** Where the pipeline reads prices: the app's price book (`app.prices`), or a test's stand-in. */
export interface PriceSource {
  /** The young price of every symbol, copied at this instant. */
  snapshot(): ReadonlyMap<string, number>;
  /** A young price of one symbol (`BTCUSDT`), asked of the market when the book's is older; rejects when it has none. */
  quote(symbol: string): Promise<number>;
  /** Every batch of prices as it comes in; the returned function stops the calls. */
  onTicks(listener: (ticks: readonly PriceItem[]) => void): Disposer;
}

/** The contract a ticker is priced on: `BTCUSDT`, or `1000PEPEUSDT` for PEPE (the price of 1,000 PEPE). */
export const symbolOf = (ticker: string): string => `${contractOf(ticker) ?? ticker}USDT`;

/**
 * The USDT price of each ticker that trades here: from the arrival snapshot, else asked now; unknown
 * ones are left out.
 * A coin is priced on its contract here (`PEPE` on `1000PEPEUSDT`, the price of 1,000 PEPE).
 */
export async function pricesAt(
  tickers: readonly string[],
  snapshot: ReadonlyMap<string, number>,
  source: PriceSource,
): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  await Promise.all(
    tickers.map(async (ticker) => {
      // A tag without a contract here (a stablecoin, FTT) has no price: it is shown without a change.
      if (contractOf(ticker) === undefined) return;
      const symbol = symbolOf(ticker);
      const known = snapshot.get(symbol);
      if (known !== undefined) {
        out[ticker] = known;
        return;
      }
      try {
        out[ticker] = await source.quote(symbol);
      } catch {
        // No price for this asset yet (not listed, or the market is down): `ArrivalPrices` may fill it.
      }
    }),
  );
  return out;
}
