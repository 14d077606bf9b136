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
import type { MarketSource } from './source';

export interface MarketLog {
  warn(obj: object, msg: string): void;
}

/**
 * The market rules: which symbols exist, prices and candles from the source, and every price batch
 * published on the bus (`price.tick`) for the modules that need prices (signals, trading), with the
 * source's mark prices (`price.mark`) when it has any.
 */
export class MarketService {
  private readonly disposers: Disposer[] = [];

  constructor(
    private readonly source: MarketSource,
    private readonly deps: { bus: Bus; log: MarketLog },
  ) {}

  get kind(): MarketSource['kind'] {
    return this.source.kind;
  }

  start(): void {
    this.disposers.push(
      this.source.onTicks((ticks) => {
        this.deps.bus
          .publish('price.tick', { source: this.source.kind, ticks: [...ticks] })
          .catch((err: unknown) => this.deps.log.warn({ err }, 'price.tick not published'));
      }),
    );
    // Only Binance has marks; on the simulator nothing is published and trading marks to last prices.
    const onMarks = this.source.onMarks?.bind(this.source);
    if (onMarks === undefined) return;
    this.disposers.push(
      onMarks((marks) => {
        this.deps.bus
          .publish('price.mark', { source: this.source.kind, marks: [...marks] })
          .catch((err: unknown) => this.deps.log.warn({ err }, 'price.mark not published'));
      }),
    );
  }

  async stop(): Promise<void> {
    for (const dispose of this.disposers.splice(0)) dispose();
    await this.source.stop();
  }

  status(): FeedStatus {
    return this.source.status();
  }

  onStatus(listener: (status: FeedStatus) => void): Disposer {
    return this.source.onStatus(listener);
  }

  onTicks(listener: (ticks: readonly PriceItem[]) => void): Disposer {
    return this.source.onTicks(listener);
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
    const item = await this.upstream(() => this.source.price(info.symbol));
    if (item === null) throw appError('SERVICE_UNAVAILABLE', `No price for ${info.symbol} yet.`);
    return { symbol: info.symbol, price: item.p, time: item.t };
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
