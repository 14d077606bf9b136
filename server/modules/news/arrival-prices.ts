import type { PriceItem } from '../../../src/contracts/market';
import { findSymbol } from '../../../src/contracts/symbols';
import type { SignalRow } from './news.repo';
import type { Clock, Disposer, NewsLog } from './news.types';
import { symbolOf, type PriceSource } from './prices-at';

/**
 * How long after arrival a price may still stand for the price at arrival (the same bound as for an
 * analysis resumed after a restart): later, it would claim a move that never happened.
 */
export const ARRIVAL_PRICE_MS = 60_000;

/** When the market is asked once more for a price it had none of at completion (ticks may come sooner). */
export const ASK_AGAIN_MS = 5_000;

export interface ArrivalPricesDeps {
  prices: Pick<PriceSource, 'quote' | 'onTicks'>;
  clock: Clock;
  log: NewsLog;
  /** Stores the price unless the asset has one already; the changed row, or null when nothing changed. */
  fill(id: number, ticker: string, price: number): Promise<SignalRow | null>;
  /** Publishes the changed signal (the stream sends it like any other update of the card). */
  publish(row: SignalRow): void;
}

interface Waiting {
  id: number;
  ticker: string;
  symbol: string;
  deadline: number;
}

/**
 * Fills the price at arrival of an asset the market had no price for when its signal completed, so that
 * every client measures "% since arrival" from the same price and none looks one up on its own: the
 * first tick of that symbol fills it, and if none came the market is asked once more after
 * `ASK_AGAIN_MS`. Past `ARRIVAL_PRICE_MS` after arrival the asset keeps no price.
 */
export class ArrivalPrices {
  /** Waiting assets by exchange symbol. */
  private readonly bySymbol = new Map<string, Set<Waiting>>();
  private readonly timers = new Set<Disposer>();
  private readonly work = new Set<Promise<void>>();
  private stopTicks: Disposer | null = null;

  constructor(private readonly deps: ArrivalPricesDeps) {}

  start(): void {
    this.stopTicks ??= this.deps.prices.onTicks((ticks) => this.onTicks(ticks));
  }

  /** How many assets are waiting for a price. */
  get size(): number {
    let n = 0;
    for (const set of this.bySymbol.values()) n += set.size;
    return n;
  }

  /** Follows the assets of a completed signal that have no price at arrival yet. */
  watch(row: SignalRow): void {
    const { clock } = this.deps;
    const deadline = row.receivedAt.getTime() + ARRIVAL_PRICE_MS;
    if (row.status !== 'completed' || clock.now() >= deadline) return;
    const mine: Waiting[] = [];
    for (const ticker of row.assets) {
      const symbol = symbolOf(ticker);
      if (row.initialPrices[ticker] !== undefined || findSymbol(symbol) === undefined) continue;
      const w: Waiting = { id: row.id, ticker, symbol, deadline };
      mine.push(w);
      const set = this.bySymbol.get(symbol) ?? new Set();
      set.add(w);
      this.bySymbol.set(symbol, set);
    }
    if (mine.length === 0) return;
    this.after(Math.min(ASK_AGAIN_MS, deadline - clock.now()), () => {
      for (const w of mine) if (this.isWaiting(w)) this.ask(w);
    });
    this.after(deadline - clock.now(), () => {
      for (const w of mine) this.forget(w);
    });
  }

  /** Cancels every wait and resolves once the fills under way are stored. */
  async stop(): Promise<void> {
    this.stopTicks?.();
    this.stopTicks = null;
    for (const cancel of this.timers) cancel();
    this.timers.clear();
    this.bySymbol.clear();
    while (this.work.size > 0) await Promise.all([...this.work]);
  }

  private after(ms: number, fn: () => void): void {
    const cancel = this.deps.clock.setTimer(() => {
      this.timers.delete(cancel);
      fn();
    }, ms);
    this.timers.add(cancel);
  }

  private isWaiting(w: Waiting): boolean {
    return this.bySymbol.get(w.symbol)?.has(w) === true;
  }

  private forget(w: Waiting): void {
    const set = this.bySymbol.get(w.symbol);
    set?.delete(w);
    if (set?.size === 0) this.bySymbol.delete(w.symbol);
  }

  private onTicks(ticks: readonly PriceItem[]): void {
    const now = this.deps.clock.now();
    for (const tick of ticks) {
      const set = this.bySymbol.get(tick.s);
      if (set === undefined) continue;
      for (const w of [...set]) {
        this.forget(w);
        if (now < w.deadline) this.fill(w, tick.p);
      }
    }
  }

  private ask(w: Waiting): void {
    this.track(
      this.deps.prices.quote(w.symbol).then(
        (price) => {
          if (!this.isWaiting(w) || this.deps.clock.now() >= w.deadline) return;
          this.forget(w);
          this.fill(w, price);
        },
        () => undefined, // Still none: a tick before the deadline may fill it.
      ),
    );
  }

  private fill(w: Waiting, price: number): void {
    this.track(
      this.deps.fill(w.id, w.ticker, price).then((row) => {
        if (row !== null) this.deps.publish(row);
      }),
    );
  }

  private track(p: Promise<void>): void {
    const done = p.catch((err: unknown) => this.deps.log.warn({ err }, 'price at arrival not filled'));
    this.work.add(done);
    void done.finally(() => this.work.delete(done));
  }
}
