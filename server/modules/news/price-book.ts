import type { PriceItem } from '../../../src/contracts/market';
import type { Bus } from '../../plugins/bus';
import { contractOf } from '../analysis/assets';
import type { Disposer } from './news.types';

/** Where the pipeline reads prices: the latest tick per symbol, and the market service for a miss. */
export interface PriceSource {
  /** The latest known price of every symbol, copied at this instant. */
  snapshot(): ReadonlyMap<string, number>;
  /** Asks the market for one symbol's price now (`BTCUSDT`); rejects when it has none. */
  quote(symbol: string): Promise<number>;
  /** Every batch of prices as it comes in; the returned function stops the calls. */
  onTicks(listener: (ticks: readonly PriceItem[]) => void): Disposer;
}

/** The contract a ticker is priced on: `BTCUSDT`, or `1000PEPEUSDT` for PEPE (the price of 1,000 PEPE). */
export const symbolOf = (ticker: string): string => `${contractOf(ticker) ?? ticker}USDT`;

/**
 * Keeps the latest price of every symbol from the bus's `price.tick`, so the price of each asset at a
 * signal's arrival is known without a round trip even when the analysis that names the asset ends later.
 */
export class PriceBook implements PriceSource {
  private readonly latest = new Map<string, number>();
  private readonly listeners = new Set<(ticks: readonly PriceItem[]) => void>();
  private dispose: Disposer | null = null;

  constructor(
    private readonly bus: Bus,
    private readonly market: { price(symbol: string): Promise<{ price: number }> },
  ) {}

  start(): void {
    this.dispose = this.bus.subscribe('price.tick', ({ ticks }) => {
      for (const t of ticks) this.latest.set(t.s, t.p);
      for (const listener of [...this.listeners]) listener(ticks);
    });
  }

  stop(): void {
    this.dispose?.();
    this.dispose = null;
  }

  snapshot(): ReadonlyMap<string, number> {
    return new Map(this.latest);
  }

  async quote(symbol: string): Promise<number> {
    return (await this.market.price(symbol)).price;
  }

  onTicks(listener: (ticks: readonly PriceItem[]) => void): Disposer {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
}

/**
 * The USDT price of each ticker: from the arrival snapshot, else asked now; unknown ones are left out.
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
