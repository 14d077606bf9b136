import type { Candle, FeedStatus, Interval, PriceItem } from '../../../../src/contracts/market';
import type { Clock, Disposer } from '../clock';
import { Listeners, type MarketSource } from '../source';
import {
  ALL_MARK_PRICES,
  ALL_MINI_TICKERS,
  RestKlines,
  RestTickerPrice,
  klineStream,
  parseStreamFrame,
  rowToCandle,
} from './messages';
import { BinanceStream, type StreamLog, type StreamOptions } from './stream';

export interface BinanceOptions {
  restUrl: string;
  streamUrl: string;
  clock: Clock;
  log: StreamLog;
  /** How long `start()` waits for the first frame before giving up. */
  startTimeoutMs?: number;
  stream?: Partial<Pick<StreamOptions, 'staleMs' | 'maxAgeMs' | 'backoffMinMs' | 'backoffMaxMs' | 'random'>>;
  fetch?: typeof globalThis.fetch;
}

const REST_TIMEOUT_MS = 5_000;

/**
 * Binance USD-M public market data: `!miniTicker@arr` for every symbol's last price and
 * `!markPrice@arr@1s` for its mark price, kline streams for the symbols clients are charting, and REST
 * for single prices and history.
 */
export class BinanceSource implements MarketSource {
  readonly kind = 'binance' as const;
  readonly stream: BinanceStream;
  private readonly ticks = new Listeners<readonly PriceItem[]>();
  private readonly marks = new Listeners<readonly PriceItem[]>();
  private readonly candles = new Map<string, Listeners<Candle>>();
  /** Frames that did not parse; logged and counted, never fatal. */
  malformed = 0;

  constructor(private readonly o: BinanceOptions) {
    this.stream = new BinanceStream({ baseUrl: o.streamUrl, clock: o.clock, log: o.log, ...o.stream }, [
      ALL_MINI_TICKERS,
      ALL_MARK_PRICES,
    ]);
    this.stream.frames.add((text) => this.onFrame(text));
  }

  /** Connects; resolves on the first price frame, rejects on a failure before it or after the timeout. */
  start(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const disposers: Disposer[] = [];
      const settle = (err?: Error): void => {
        for (const d of disposers) d();
        if (err === undefined) resolve();
        else reject(err);
      };
      disposers.push(
        this.ticks.add(() => settle()),
        this.stream.failures.add((err) => settle(err)),
        this.o.clock.setTimer(
          () => settle(new Error('no data from Binance in time')),
          this.o.startTimeoutMs ?? 5_000,
        ),
      );
      this.stream.start();
    });
  }

  async stop(): Promise<void> {
    this.stream.stop();
  }

  status(): FeedStatus {
    return this.stream.status();
  }

  problem(): string | null {
    return this.stream.problem();
  }

  onStatus(listener: (status: FeedStatus) => void): Disposer {
    return this.stream.statuses.add(listener);
  }

  onTicks(listener: (ticks: readonly PriceItem[]) => void): Disposer {
    return this.ticks.add(listener);
  }

  onMarks(listener: (marks: readonly PriceItem[]) => void): Disposer {
    return this.marks.add(listener);
  }

  async price(symbol: string): Promise<PriceItem | null> {
    // The stream's prices are in the app's price book; this is asked when the book's is too old.
    const body = await this.get('/fapi/v1/ticker/price', { symbol });
    const parsed = RestTickerPrice.parse(body);
    return { s: parsed.symbol, p: parsed.price, t: parsed.time };
  }

  async klines(symbol: string, interval: Interval, limit: number): Promise<Candle[]> {
    const body = await this.get('/fapi/v1/klines', { symbol, interval, limit: String(limit) });
    return RestKlines.parse(body).map(rowToCandle);
  }

  watchCandles(symbol: string, interval: Interval, listener: (candle: Candle) => void): Disposer {
    const stream = klineStream(symbol, interval);
    let set = this.candles.get(stream);
    if (set === undefined) {
      set = new Listeners();
      this.candles.set(stream, set);
      this.stream.add(stream);
    }
    const dispose = set.add(listener);
    const owner = set;
    return () => {
      dispose();
      if (owner.size === 0 && this.candles.get(stream) === owner) {
        this.candles.delete(stream);
        this.stream.remove(stream);
      }
    };
  }

  private onFrame(text: string): void {
    const frame = parseStreamFrame(text);
    switch (frame.kind) {
      case 'tickers':
        this.ticks.emit(frame.items);
        return;
      case 'marks':
        this.marks.emit(frame.items);
        return;
      case 'candle':
        this.candles.get(klineStream(frame.symbol, frame.interval))?.emit(frame.candle);
        return;
      case 'reply':
        return;
      case 'malformed':
        this.malformed += 1;
        this.o.log.warn({ reason: frame.reason }, 'binance stream: malformed frame ignored');
    }
  }

  private async get(path: string, query: Record<string, string>): Promise<unknown> {
    const url = new URL(path, this.o.restUrl);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const res = await (this.o.fetch ?? fetch)(url, { signal: AbortSignal.timeout(REST_TIMEOUT_MS) });
    if (!res.ok) throw new Error(`Binance answered ${res.status} for ${path}`);
    return res.json();
  }
}
