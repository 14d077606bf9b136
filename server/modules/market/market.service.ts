import type {
  Candle,
  FeedStatus,
  Interval,
  KlinesQuery,
  PriceItem,
  PriceQuote,
} from '../../../src/contracts/market';
import { SYMBOLS, findSymbol, type SymbolInfo } from '../../../src/contracts/symbols';
import type { Bus } from '../../plugins/bus';
import { appError } from '../../plugins/errors';
import type { Disposer } from './clock';
import { PriceBook } from './price-book';
import { Listeners, type MarketSource } from './source';

export interface MarketLog {
  warn(obj: object, msg: string): void;
}

/**
 * The market rules: which symbols exist, prices and candles from the source. One process (the holder of
 * the market feed) publishes every price batch on the bus (`price.tick`), with the source's mark prices
 * (`price.mark`) when it has any; every process, that one included, takes its prices from the bus.
 */
export class MarketService {
  private readonly disposers: Disposer[] = [];
  private readonly publishers: Disposer[] = [];
  private readonly ticks = new Listeners<readonly PriceItem[]>();
  /** The process's one book of prices, every module's (`app.prices`). */
  readonly book: PriceBook;
  private leading = false;
  private heardAt: number;

  constructor(
    private readonly source: MarketSource,
    private readonly deps: {
      bus: Bus;
      log: MarketLog;
      /** Without a tick on the bus for this long, a process that does not publish calls the feed stalled. */
      staleMs?: number;
      /** How old a price may be and still size or fill an order, or price a signal's arrival. */
      priceMaxAgeMs?: number;
      now?: () => number;
    },
  ) {
    this.heardAt = this.now();
    this.book = new PriceBook({
      now: () => this.now(),
      ...(deps.priceMaxAgeMs === undefined ? {} : { maxAgeMs: deps.priceMaxAgeMs }),
      ask: (symbol) => this.ask(symbol),
      askSource: () => this.source.kind,
    });
  }

  get kind(): MarketSource['kind'] {
    return this.source.kind;
  }

  /** Whether this process publishes the prices (it holds the market feed). */
  get publishes(): boolean {
    return this.leading;
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /**
   * Every process reads prices from the bus, whichever process publishes them, so that every price
   * socket, mark and signal sees the one stream.
   */
  start(): void {
    this.disposers.push(
      this.deps.bus.subscribe('price.tick', ({ source, ticks }) => {
        this.heardAt = this.now();
        // Kept with each price: the publisher's source, which may not be this process's own.
        this.book.recordLast(ticks, source);
        if (!this.leading) this.source.follow?.(ticks);
        this.ticks.emit(ticks);
      }),
      this.deps.bus.subscribe('price.mark', ({ source, marks }) => this.book.recordMarks(marks, source)),
    );
  }

  /** This process now holds the market feed: its source's prices (and marks) go on the bus. */
  async lead(): Promise<void> {
    if (this.leading) return;
    this.leading = true;
    this.publishers.push(
      this.source.onTicks((ticks) => {
        this.deps.bus
          .publish('price.tick', { source: this.source.kind, ticks: [...ticks] })
          .catch((err: unknown) => this.deps.log.warn({ err }, 'price.tick not published'));
      }),
    );
    // Only Binance has marks; on the simulator nothing is published and trading marks to last prices.
    const onMarks = this.source.onMarks?.bind(this.source);
    if (onMarks !== undefined) {
      this.publishers.push(
        onMarks((marks) => {
          this.deps.bus
            .publish('price.mark', { source: this.source.kind, marks: [...marks] })
            .catch((err: unknown) => this.deps.log.warn({ err }, 'price.mark not published'));
        }),
      );
    }
    // The simulator invents its prices, so only the publisher's ticks; Binance's stream runs everywhere
    // (its kline streams serve each process's charts) and is only published from here.
    if (this.source.follow) await this.source.start();
  }

  /** Another process publishes from now on. */
  async unlead(): Promise<void> {
    if (!this.leading) return;
    this.leading = false;
    for (const dispose of this.publishers.splice(0)) dispose();
    if (this.source.follow) await this.source.stop();
  }

  async stop(): Promise<void> {
    for (const dispose of this.disposers.splice(0)) dispose();
    for (const dispose of this.publishers.splice(0)) dispose();
    this.leading = false;
    await this.source.stop();
  }

  /** What is wrong with the feed: the source's own trouble, or no prices on the bus from any publisher. */
  problem(): string | null {
    const own = this.source.problem();
    if (own !== null) return own;
    const staleMs = this.deps.staleMs;
    if (staleMs !== undefined && this.now() - this.heardAt > staleMs) return 'market feed stalled';
    return null;
  }

  status(): FeedStatus {
    return this.source.status();
  }

  onStatus(listener: (status: FeedStatus) => void): Disposer {
    return this.source.onStatus(listener);
  }

  /** Every price batch on the bus (the book has recorded it by then). */
  onTicks(listener: (ticks: readonly PriceItem[]) => void): Disposer {
    return this.ticks.add(listener);
  }

  symbols(): readonly SymbolInfo[] {
    return SYMBOLS;
  }

  /** The supported symbol, or undefined; `symbol` is an exchange symbol in any case. */
  find(symbol: string): SymbolInfo | undefined {
    return findSymbol(symbol);
  }

  /** The supported symbol, or a 404 naming it. */
  require(symbol: string): SymbolInfo {
    const found = findSymbol(symbol);
    if (found === undefined) throw appError('NOT_FOUND', `Unknown symbol: ${symbol.toUpperCase()}.`);
    return found;
  }

  async price(symbol: string): Promise<PriceQuote> {
    const info = this.require(symbol);
    let item: PriceItem;
    try {
      item = await this.book.freshItem(info.symbol);
    } catch (err) {
      // Shown, not traded on: the last price seen, with its time, while the source does not answer.
      const seen = this.book.seen(info.symbol);
      if (seen === undefined) throw err;
      item = seen;
    }
    return { symbol: info.symbol, price: item.p, time: item.t };
  }

  /** The source's price now, for a symbol the book has no young price of. */
  private async ask(symbol: string): Promise<PriceItem> {
    const info = this.require(symbol);
    const item = await this.upstream(() => this.source.price(info.symbol));
    if (item === null) throw appError('SERVICE_UNAVAILABLE', `No price for ${info.symbol} yet.`);
    return item;
  }

  async klines(query: KlinesQuery): Promise<Candle[]> {
    const info = this.require(query.symbol);
    return this.upstream(() => this.source.klines(info.symbol, query.interval, query.limit));
  }

  /** Live candles of a supported symbol; the source shares one upstream watch per symbol and interval. */
  watchCandles(symbol: string, interval: Interval, listener: (candle: Candle) => void): Disposer {
    return this.source.watchCandles(this.require(symbol).symbol, interval, listener);
  }

  private async upstream<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      this.deps.log.warn({ err }, 'market source call failed');
      throw appError('SERVICE_UNAVAILABLE', 'Market data is unavailable right now. Please try again.');
    }
  }
}
