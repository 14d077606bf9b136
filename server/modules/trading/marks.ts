import type { PriceItem } from '../../../src/contracts/market';

/** What a symbol is marked at: the exchange's mark price, or its last trade. */
export type MarkKind = 'mark' | 'last';

export interface MarkQuote {
  price: number;
  kind: MarkKind;
}

/** Binance sends a mark every second: ten missed in a row and the stream counts as gone. */
export const MARK_STALE_MS = 10_000;

export interface MarkBookOptions {
  now(): number;
  /** A mark received longer ago than this no longer counts while last prices still arrive. */
  staleMs?: number;
}

interface Seen {
  price: number;
  /** When this process received it (local time: Binance's event time may be skewed). */
  at: number;
}

/**
 * The price to mark each symbol at, for liquidation checks and unrealised PnL: the exchange's mark
 * price (`price.mark`) while it keeps coming, otherwise the last trade (`price.tick`). The simulator
 * has no marks, so there every symbol is marked to its last price; a symbol whose marks stopped for
 * `staleMs` falls back to its last price the same way until marks come again.
 */
export class MarkBook {
  private readonly marks = new Map<string, Seen>();
  private readonly lasts = new Map<string, Seen>();
  private readonly staleMs: number;

  constructor(private readonly o: MarkBookOptions) {
    this.staleMs = o.staleMs ?? MARK_STALE_MS;
  }

  /**
   * Records last trade prices; returns the symbols whose mark moved with them (those without a fresh
   * mark: a trade does not move a mark).
   */
  recordLast(items: readonly PriceItem[]): Set<string> {
    const at = this.o.now();
    const moved = new Set<string>();
    for (const item of items) {
      this.lasts.set(item.s, { price: item.p, at });
      if (this.freshMark(item.s, at) === undefined) moved.add(item.s);
    }
    return moved;
  }

  /** Records the exchange's mark prices; returns their symbols (each is now marked at its mark). */
  recordMarks(items: readonly PriceItem[]): Set<string> {
    const at = this.o.now();
    for (const item of items) this.marks.set(item.s, { price: item.p, at });
    return new Set(items.map((item) => item.s));
  }

  /** The last trade price, whatever the mark (what a market order fills around). */
  last(symbol: string): number | undefined {
    return this.lasts.get(symbol)?.price;
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
  price(symbol: string): number | undefined {
    return this.at(symbol)?.price;
  }

  private freshMark(symbol: string, now: number): number | undefined {
    const mark = this.marks.get(symbol);
    return mark !== undefined && now - mark.at <= this.staleMs ? mark.price : undefined;
  }
}
