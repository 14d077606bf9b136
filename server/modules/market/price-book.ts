import type { MarketSourceKind, PriceItem } from '../../../src/contracts/market';
import { Listeners } from './source';
import type { Disposer } from './clock';

/** What a symbol is marked at: the exchange's mark price, or its last trade. */
export type MarkKind = 'mark' | 'last';

export interface MarkQuote {
  price: number;
  kind: MarkKind;
}

/** Binance sends a mark every second: ten missed in a row and the stream counts as gone. */
export const MARK_STALE_MS = 10_000;

/** A last price older than this sizes no order, fills no paper order and prices no news arrival. */
export const PRICE_MAX_AGE_MS = 5_000;

/**
 * A snapshot is shared by every signal that arrives within this long of it and before the next batch:
 * however many signals a burst brings, the prices are copied a few times a second at most.
 */
const SNAPSHOT_REUSE_MS = 100;

export interface PriceBookOptions {
  now(): number;
  /** How old a last price may be and still size or fill an order (default `PRICE_MAX_AGE_MS`). */
  maxAgeMs?: number;
  /** A mark received longer ago than this no longer counts while last prices still arrive. */
  markStaleMs?: number;
  /** Asks the market for a symbol's price now, when the book has none young enough. */
  ask(symbol: string): Promise<PriceItem>;
  /** Where the prices `ask` answers come from (this process's market source). */
  askSource?: () => MarketSourceKind;
}

interface Seen {
  price: number;
  /** The source's own time of the price. */
  t: number;
  /** When this process received it (local time: the exchange's event time may be skewed). */
  at: number;
  /** Whose price it is (Binance's stream, or the simulator); undefined when not said. */
  source: MarketSourceKind | undefined;
}

/**
 * The one book of prices in a process: every module reads it, none keeps its own. The market module
 * records each batch from the bus (`price.tick` last trades, `price.mark` Binance's mark prices) with
 * the local time it arrived, and every reader says how old a price it accepts:
 *  - orders are sized and paper orders filled only on a last price at most `maxAgeMs` old (`fresh`
 *    asks the market for one when the book's is older), and so is a signal's price at its arrival;
 *  - exits act only on a young price (`last`), and those of a venue's positions only on that venue's
 *    own prices (`venuePrice`): each price keeps its source, so a simulated one never moves them;
 *  - liquidation checks and unrealised PnL mark to a fresh mark, else the last trade (`at`).
 */
export class PriceBook {
  private readonly marks = new Map<string, Seen>();
  private readonly lasts = new Map<string, Seen>();
  private readonly ticks = new Listeners<readonly PriceItem[]>();
  private readonly moves = new Listeners<ReadonlySet<string>>();
  private shared: { at: number; prices: ReadonlyMap<string, number> } | null = null;
  /** The source of the latest batch of last prices, and when it arrived. */
  private latest: { source: MarketSourceKind | undefined; at: number } | null = null;
  private readonly maxAgeMs: number;
  private readonly markStaleMs: number;

  constructor(private readonly o: PriceBookOptions) {
    this.maxAgeMs = o.maxAgeMs ?? PRICE_MAX_AGE_MS;
    this.markStaleMs = o.markStaleMs ?? MARK_STALE_MS;
  }

  /** How old a last price may be and still size or fill an order. */
  get maxAge(): number {
    return this.maxAgeMs;
  }

  /**
   * Records a batch of last trade prices, then tells the tick listeners, and the move listeners which
   * symbols' marks moved with it (those without a fresh mark of their own: a trade does not move a mark).
   */
  recordLast(items: readonly PriceItem[], source?: MarketSourceKind): void {
    const at = this.o.now();
    const moved = new Set<string>();
    this.shared = null;
    this.latest = { source, at };
    for (const item of items) {
      this.lasts.set(item.s, { price: item.p, t: item.t, at, source });
      if (this.freshMark(item.s, at) === undefined) moved.add(item.s);
    }
    this.ticks.emit(items);
    if (moved.size > 0) this.moves.emit(moved);
  }

  /** Records the exchange's mark prices; each of their symbols is now marked at its mark. */
  recordMarks(items: readonly PriceItem[], source?: MarketSourceKind): void {
    const at = this.o.now();
    for (const item of items) this.marks.set(item.s, { price: item.p, t: item.t, at, source });
    if (items.length > 0) this.moves.emit(new Set(items.map((item) => item.s)));
  }

  /** Every batch of last prices as it is recorded. */
  onTicks(listener: (ticks: readonly PriceItem[]) => void): Disposer {
    return this.ticks.add(listener);
  }

  /** The symbols whose mark moved, after each batch. */
  onMarksMoved(listener: (moved: ReadonlySet<string>) => void): Disposer {
    return this.moves.add(listener);
  }

  /** The last trade price if it is at most `maxAgeMs` old (what an order is sized and filled on). */
  last(symbol: string, maxAgeMs = this.maxAgeMs): number | undefined {
    const seen = this.lasts.get(symbol);
    return seen !== undefined && this.o.now() - seen.at <= maxAgeMs ? seen.price : undefined;
  }

  /** How long ago the last price of `symbol` arrived, or undefined when none has. */
  ageOf(symbol: string): number | undefined {
    const seen = this.lasts.get(symbol);
    return seen === undefined ? undefined : this.o.now() - seen.at;
  }

  /** A young last price: the book's, else the market's answer now (which the book keeps). */
  async fresh(symbol: string): Promise<number> {
    return (await this.freshItem(symbol)).p;
  }

  /** `fresh` with the source's time of the price. */
  async freshItem(symbol: string): Promise<PriceItem> {
    const young = this.young(symbol);
    if (young !== undefined) return young;
    const item = await this.o.ask(symbol);
    // A tick that came in while the market was asked is at least as new as its answer.
    const since = this.young(item.s);
    if (since !== undefined) return since;
    this.lasts.set(item.s, { price: item.p, t: item.t, at: this.o.now(), source: this.o.askSource?.() });
    this.shared = null;
    return item;
  }

  /**
   * A young price of `symbol` from `source` alone: its fresh mark when the source sent one, else its last
   * price at most `maxAgeMs` old when that is the source's; undefined otherwise (another source's, or old).
   * What a venue's positions are watched on: a simulated price says nothing of where Binance trades.
   */
  venuePrice(symbol: string, source: MarketSourceKind, maxAgeMs = this.maxAgeMs): number | undefined {
    const now = this.o.now();
    const mark = this.marks.get(symbol);
    if (mark !== undefined && mark.source === source && now - mark.at <= this.markStaleMs) return mark.price;
    const last = this.lasts.get(symbol);
    return last !== undefined && last.source === source && now - last.at <= maxAgeMs ? last.price : undefined;
  }

  /**
   * Whether the prices flowing now are `source`'s: the latest batch was its own and arrived at most
   * `maxAgeMs` ago. (On the simulator, or with no prices, a venue's positions have no price to act on.)
   */
  flowingFrom(source: MarketSourceKind, maxAgeMs = this.maxAgeMs): boolean {
    const latest = this.latest;
    return latest !== null && latest.source === source && this.o.now() - latest.at <= maxAgeMs;
  }

  /** The last price of `symbol` whatever its age (to show, never to trade on). */
  seen(symbol: string): PriceItem | undefined {
    const seen = this.lasts.get(symbol);
    return seen === undefined ? undefined : { s: symbol, p: seen.price, t: seen.t };
  }

  private young(symbol: string): PriceItem | undefined {
    const seen = this.lasts.get(symbol);
    if (seen === undefined || this.o.now() - seen.at > this.maxAgeMs) return undefined;
    return { s: symbol, p: seen.price, t: seen.t };
  }

  /** The young last prices of every symbol, copied at this instant (a signal's prices at arrival). */
  snapshot(): ReadonlyMap<string, number> {
    const now = this.o.now();
    if (this.shared !== null && now - this.shared.at <= SNAPSHOT_REUSE_MS) return this.shared.prices;
    const out = new Map<string, number>();
    for (const [symbol, seen] of this.lasts) if (now - seen.at <= this.maxAgeMs) out.set(symbol, seen.price);
    this.shared = { at: now, prices: out };
    return out;
  }

  /** `fresh`, under the name the news pipeline reads prices by. */
  quote(symbol: string): Promise<number> {
    return this.fresh(symbol);
  }

  /**
   * The price to mark `symbol` at, and which kind it is: a fresh mark, else the last price, else a
   * stale mark (better than nothing before the first trade arrives).
   */
  at(symbol: string): MarkQuote | undefined {
    const fresh = this.freshMark(symbol, this.o.now());
    if (fresh !== undefined) return { price: fresh, kind: 'mark' };
    const last = this.lasts.get(symbol);
    if (last !== undefined) return { price: last.price, kind: 'last' };
    const stale = this.marks.get(symbol);
    return stale === undefined ? undefined : { price: stale.price, kind: 'mark' };
  }

  /** `at(symbol)`'s price alone (the paper exchange's mark source). */
  markPrice(symbol: string): number | undefined {
    return this.at(symbol)?.price;
  }

  private freshMark(symbol: string, now: number): number | undefined {
    const mark = this.marks.get(symbol);
    return mark !== undefined && now - mark.at <= this.markStaleMs ? mark.price : undefined;
  }
}
