import {
  candleOpenTime,
  intervalMs,
  type Candle,
  type FeedStatus,
  type Interval,
  type PriceItem,
} from '../../../../src/contracts/market';
import { every, type Clock, type Disposer } from '../clock';
import { Listeners, type MarketSource } from '../source';
import { SIM_PROFILES } from './profiles';
import { createRng, hash32, roundPrice, type Rng } from './rng';

const DAY_MS = 86_400_000;
const YEAR_MS = 365 * DAY_MS;
/** Occasional jumps: about this many per symbol per day, each a few times the daily move. */
const JUMPS_PER_DAY = 1;
const JUMP_SCALE = 0.02;
/** Steps inside each historical candle, which give it wicks. */
const STEPS = 8;

export interface SimOptions {
  seed: number;
  clock: Clock;
  tickMs: number;
  /** Exchange symbols (`BTCUSDT`) in a fixed order; each needs a profile. */
  symbols: readonly string[];
}

interface Profile {
  symbol: string;
  volatility: number;
  /** Average daily turnover in USDT, larger for the first (bigger) symbols. */
  turnover: number;
}

interface Watch {
  symbol: string;
  interval: Interval;
  candle: Candle;
  listeners: Listeners<Candle>;
}

/** One step of a geometric random walk with occasional jumps, as a log-return. */
function logReturn(rng: Rng, volatility: number, stepMs: number): number {
  const dt = stepMs / YEAR_MS;
  let r = volatility * Math.sqrt(dt) * rng.normal() - 0.5 * volatility * volatility * dt;
  if (rng.next() < (JUMPS_PER_DAY * stepMs) / DAY_MS) {
    r += rng.normal() * volatility * JUMP_SCALE;
  }
  return r;
}

/**
 * A seeded price simulator: realistic starting prices and volatilities, live ticks every `tickMs` for
 * every symbol, and history for the last intervals of any supported interval. The same seed and the
 * same clock give the same ticks and candles.
 */
export class SimSource implements MarketSource {
  readonly kind = 'sim' as const;
  private readonly profiles: Profile[];
  private readonly prices: Float64Array;
  private readonly index = new Map<string, number>();
  private readonly live: Rng;
  private readonly ticks = new Listeners<readonly PriceItem[]>();
  private readonly watches = new Map<string, Watch>();
  private lastTick: number;
  private stopTicking: Disposer | null = null;

  constructor(private readonly opts: SimOptions) {
    const start = createRng(hash32(`${opts.seed}:start`));
    this.profiles = opts.symbols.map((symbol, i) => {
      const profile = SIM_PROFILES[symbol.replace(/USDT$/, '')];
      if (profile === undefined) throw new Error(`No simulator profile for ${symbol}.`);
      this.index.set(symbol, i);
      return { symbol, volatility: profile[1], turnover: 2e10 / Math.pow(1 + i, 1.1) };
    });
    this.prices = Float64Array.from(opts.symbols, (symbol) => {
      const base = SIM_PROFILES[symbol.replace(/USDT$/, '')]?.[0] ?? 1;
      return base * Math.exp(0.05 * start.normal());
    });
    this.live = createRng(hash32(`${opts.seed}:live`));
    this.lastTick = opts.clock.now();
  }

  async start(): Promise<void> {
    this.stopTicking ??= every(this.opts.clock, this.opts.tickMs, () => this.tick());
  }

  async stop(): Promise<void> {
    this.stopTicking?.();
    this.stopTicking = null;
  }

  status(): FeedStatus {
    return 'ok';
  }

  problem(): string | null {
    return null;
  }

  onStatus(): Disposer {
    return () => undefined; // The simulator never degrades.
  }

  onTicks(listener: (ticks: readonly PriceItem[]) => void): Disposer {
    return this.ticks.add(listener);
  }

  async price(symbol: string): Promise<PriceItem | null> {
    const i = this.index.get(symbol);
    const p = i === undefined ? undefined : this.prices[i];
    return p === undefined ? null : { s: symbol, p: roundPrice(p), t: this.lastTick };
  }

  async klines(symbol: string, interval: Interval, limit: number): Promise<Candle[]> {
    return this.history(symbol, interval, limit);
  }

  watchCandles(symbol: string, interval: Interval, listener: (candle: Candle) => void): Disposer {
    const key = `${symbol}:${interval}`;
    let watch = this.watches.get(key);
    if (watch === undefined) {
      const [candle] = this.history(symbol, interval, 1);
      if (candle === undefined) return () => undefined;
      watch = { symbol, interval, candle, listeners: new Listeners() };
      this.watches.set(key, watch);
    }
    const dispose = watch.listeners.add(listener);
    const owner = watch;
    return () => {
      dispose();
      if (owner.listeners.size === 0) this.watches.delete(key);
    };
  }

  /** Advances every symbol by one tick and tells the listeners. */
  private tick(): void {
    const t = this.opts.clock.now();
    const step = t - this.lastTick || this.opts.tickMs;
    this.lastTick = t;
    const batch: PriceItem[] = [];
    const volumes = new Float64Array(this.profiles.length);
    this.profiles.forEach((profile, i) => {
      const r = logReturn(this.live, profile.volatility, step);
      const p = (this.prices[i] ?? 0) * Math.exp(r);
      this.prices[i] = p;
      volumes[i] = this.volume(profile, p, r, step);
      batch.push({ s: profile.symbol, p: roundPrice(p), t });
    });
    this.advanceWatches(batch, volumes, t);
    this.ticks.emit(batch);
  }

  /** Takes another process's ticks as this one's prices (it does not tick itself meanwhile). */
  follow(ticks: readonly PriceItem[]): void {
    const t = ticks.reduce((latest, item) => Math.max(latest, item.t), this.lastTick);
    const step = t - this.lastTick || this.opts.tickMs;
    this.lastTick = t;
    const given = new Map(ticks.map((item) => [item.s, item.p]));
    const batch: PriceItem[] = [];
    const volumes = new Float64Array(this.profiles.length);
    this.profiles.forEach((profile, i) => {
      const before = this.prices[i] ?? 0;
      const p = given.get(profile.symbol) ?? before;
      this.prices[i] = p;
      volumes[i] = before > 0 ? this.volume(profile, p, Math.log(p / before), step) : 0;
      batch.push({ s: profile.symbol, p, t });
    });
    this.advanceWatches(batch, volumes, t);
  }

  private volume(profile: Profile, price: number, logReturn: number, step: number): number {
    const typical = profile.volatility * Math.sqrt(step / YEAR_MS);
    return ((profile.turnover / price) * step * (0.4 + Math.abs(logReturn) / typical)) / DAY_MS;
  }

  private advanceWatches(batch: readonly PriceItem[], volumes: Float64Array, t: number): void {
    for (const watch of this.watches.values()) {
      const i = this.index.get(watch.symbol) ?? 0;
      watch.candle = this.advanceCandle(watch, batch[i]?.p ?? watch.candle.close, volumes[i] ?? 0, t);
      watch.listeners.emit(watch.candle);
    }
  }

  private advanceCandle(watch: Watch, price: number, volume: number, t: number): Candle {
    const open = candleOpenTime(t, watch.interval);
    const c = watch.candle;
    if (open > c.time) {
      return {
        time: open,
        open: c.close,
        high: Math.max(c.close, price),
        low: Math.min(c.close, price),
        close: price,
        volume,
      };
    }
    return {
      time: c.time,
      open: c.open,
      high: Math.max(c.high, price),
      low: Math.min(c.low, price),
      close: price,
      volume: c.volume + volume,
    };
  }

  /**
   * The last `limit` candles, built backwards from the current price: each candle's shape comes from
   * a random stream keyed by (seed, symbol, interval, open time), so history is stable for a seed.
   */
  private history(symbol: string, interval: Interval, limit: number): Candle[] {
    const i = this.index.get(symbol);
    const profile = i === undefined ? undefined : this.profiles[i];
    if (i === undefined || profile === undefined) return [];
    const ms = intervalMs(interval);
    const now = this.opts.clock.now();
    const currentOpen = candleOpenTime(now, interval);
    const out: Candle[] = [];
    let close = this.prices[i] ?? 0;
    for (let k = 0; k < limit; k++) {
      const time = currentOpen - k * ms;
      const span = k === 0 ? Math.max(now - time, 1) : ms;
      const rng = createRng(hash32(`${this.opts.seed}:${symbol}:${interval}:${time}`));
      let level = 1;
      let hi = 1;
      let lo = 1;
      for (let s = 0; s < STEPS; s++) {
        level *= Math.exp(logReturn(rng, profile.volatility, span / STEPS));
        hi = Math.max(hi, level);
        lo = Math.min(lo, level);
      }
      const wick = profile.volatility * Math.sqrt(span / STEPS / YEAR_MS);
      hi *= 1 + Math.abs(rng.normal()) * wick * 0.6;
      lo *= 1 - Math.abs(rng.normal()) * wick * 0.6;
      const open = close / level;
      const typical = profile.volatility * Math.sqrt(span / YEAR_MS);
      const move = Math.abs(Math.log(level)) / typical;
      const volume =
        ((profile.turnover / close) * span * (0.5 + 0.7 * move) * Math.exp(0.35 * rng.normal())) / DAY_MS;
      out.push({
        time,
        open: roundPrice(open),
        high: roundPrice(Math.max(open * hi, open, close)),
        low: roundPrice(Math.min(open * lo, open, close)),
        close: roundPrice(close),
        volume: Number(volume.toPrecision(6)),
      });
      close = open;
    }
    return out.reverse();
  }
}
