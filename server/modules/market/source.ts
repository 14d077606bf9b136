import type {
  Candle,
  FeedStatus,
  Interval,
  MarketSourceKind,
  PriceItem,
} from '../../../src/contracts/market';
import type { Disposer } from './clock';

/**
 * Where prices come from. Two implementations sit behind the same tests: `binance` (public REST and
 * streams) and `sim` (a seeded simulator). Symbols here are exchange symbols (`BTCUSDT`) that the
 * service has already checked against the supported list.
 */
export interface MarketSource {
  readonly kind: MarketSourceKind;
  /** Resolves once data flows; rejects when the source cannot start (auto mode then falls back). */
  start(): Promise<void>;
  stop(): Promise<void>;
  status(): FeedStatus;
  /** What is wrong with the feed in a short phrase ("market feed stalled"), or null when it flows. */
  problem(): string | null;
  onStatus(listener: (status: FeedStatus) => void): Disposer;
  /** Every upstream update, as one batch of the symbols that moved. */
  onTicks(listener: (ticks: readonly PriceItem[]) => void): Disposer;
  /**
   * The exchange's mark prices (what it liquidates on), one batch per upstream update. Only a source
   * that has marks of its own implements it: the simulator's only price is its last price.
   */
  onMarks?(listener: (marks: readonly PriceItem[]) => void): Disposer;
  /**
   * Only a source whose prices are its own invention (the simulator) has this: in a process that does
   * not hold the market feed it does not tick but takes the publisher's ticks as its prices, so that its
   * history and live candles agree with every other process's.
   */
  follow?(ticks: readonly PriceItem[]): void;
  /** The price now (Binance: its REST ticker), or null when the source has none for the symbol. */
  price(symbol: string): Promise<PriceItem | null>;
  /** The last `limit` candles, oldest first; the last one is the candle in progress. */
  klines(symbol: string, interval: Interval, limit: number): Promise<Candle[]>;
  /** Live updates of the candle in progress (a new open time starts the next candle). */
  watchCandles(symbol: string, interval: Interval, listener: (candle: Candle) => void): Disposer;
}

/** A listener set whose `add` returns its disposer. */
export class Listeners<T> {
  private readonly set = new Set<(value: T) => void>();

  add(listener: (value: T) => void): Disposer {
    this.set.add(listener);
    return () => {
      this.set.delete(listener);
    };
  }

  emit(value: T): void {
    for (const listener of [...this.set]) listener(value);
  }

  get size(): number {
    return this.set.size;
  }
}
