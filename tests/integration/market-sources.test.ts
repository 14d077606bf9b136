import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  INTERVALS,
  candleOpenTime,
  intervalMs,
  type Candle,
  type PriceItem,
} from '../../src/contracts/market';
import { SYMBOLS } from '../../src/contracts/symbols';
import { BinanceSource } from '../../server/modules/market/binance/binance-source';
import { systemClock } from '../../server/modules/market/clock';
import { createSim } from '../../server/modules/market/market-resolver';
import { SIM_PROFILES } from '../../server/modules/market/sim/profiles';
import type { MarketSource } from '../../server/modules/market/source';
import { createFakeClock } from '../../src/services/testing/fakeClock';
import { startBinanceDouble, type BinanceDouble } from '../fixtures/binance-double';

const quiet = { info: () => undefined, warn: () => undefined };

/** How each source is made and how a test makes it produce one upstream update. */
interface Made {
  source: MarketSource;
  /** One upstream price update. */
  pump(): void;
  /** One upstream update of the candle in progress of ETHUSDT 1m (once it is watched). */
  pumpCandle(): Promise<void>;
  now(): number;
  close(): Promise<void>;
}
interface Driver {
  name: 'sim' | 'binance';
  make(): Promise<Made>;
}

const simConfig = { MARKET_SIM_SEED: 7, MARKET_SIM_TICK_MS: 1_000 };

const drivers: Driver[] = [
  {
    name: 'sim',
    async make() {
      const clock = createFakeClock(Date.UTC(2025, 0, 6, 12, 7, 30));
      const source = createSim(simConfig, clock);
      const pump = () => clock.advance(1_000);
      return { source, pump, pumpCandle: async () => pump(), now: clock.now, close: () => source.stop() };
    },
  },
  {
    name: 'binance',
    async make() {
      const double: BinanceDouble = await startBinanceDouble();
      const source = new BinanceSource({
        restUrl: double.restUrl,
        streamUrl: double.streamUrl,
        clock: systemClock,
        log: quiet,
      });
      return {
        source,
        pump: () => double.tick(),
        async pumpCandle() {
          await vi.waitFor(() => expect(double.streams()[0]).toContain('ethusdt@kline_1m'));
          const t = candleOpenTime(Date.now(), '1m');
          double.kline('ETHUSDT', '1m', { t, o: 3_400, h: 3_410, l: 3_395, c: 3_405.5, v: 12.5 });
        },
        now: Date.now,
        async close() {
          await source.stop();
          await double.close();
        },
      };
    },
  },
];

function checkCandles(candles: Candle[], interval: (typeof INTERVALS)[number]) {
  const ms = intervalMs(interval);
  candles.forEach((c, i) => {
    expect(c.time % ms).toBe(0);
    if (i > 0) expect(c.time - (candles[i - 1]?.time ?? 0)).toBe(ms);
    expect(c.high).toBeGreaterThanOrEqual(Math.max(c.open, c.close));
    expect(c.low).toBeLessThanOrEqual(Math.min(c.open, c.close));
    expect(c.low).toBeGreaterThan(0);
    expect(c.volume).toBeGreaterThanOrEqual(0);
  });
}

describe.each(drivers)('market source contract: $name', (driver) => {
  let close: () => Promise<void> = async () => undefined;
  afterEach(async () => {
    await close();
  });

  it('starts, streams price batches and answers the latest price', async () => {
    const made = await driver.make();
    close = made.close;
    const { source, pump } = made;
    const batches: (readonly PriceItem[])[] = [];
    source.onTicks((ticks) => batches.push(ticks));
    const started = source.start();
    if (driver.name === 'binance') await vi.waitFor(() => expect(source.status()).toBe('degraded'));
    const pumping = setInterval(pump, 20);
    await started;
    clearInterval(pumping);
    pump();
    await vi.waitFor(() => expect(batches.length).toBeGreaterThan(0));
    const btc = batches.at(-1)?.find((t) => t.s === 'BTCUSDT');
    expect(btc?.p).toBeGreaterThan(10_000);
    expect(source.status()).toBe('ok');
    const price = await source.price('BTCUSDT');
    expect(price?.s).toBe('BTCUSDT');
    expect(price?.p).toBeGreaterThan(10_000);
  });

  it('answers klines of the requested length, aligned, oldest first, with sane OHLCV', async () => {
    const made = await driver.make();
    close = made.close;
    for (const interval of ['1m', '15m', '1h'] as const) {
      const candles = await made.source.klines('BTCUSDT', interval, 50);
      expect(candles).toHaveLength(50);
      checkCandles(candles, interval);
      expect(candles.at(-1)?.time).toBe(candleOpenTime(made.now(), interval));
    }
  });

  it('streams the candle in progress for a watched symbol and interval', async () => {
    const made = await driver.make();
    close = made.close;
    const { source, pump } = made;
    const pumping = setInterval(pump, 20);
    await source.start();
    clearInterval(pumping);
    const seen: Candle[] = [];
    const stop = source.watchCandles('ETHUSDT', '1m', (c) => seen.push(c));
    await made.pumpCandle();
    await vi.waitFor(() => expect(seen.length).toBeGreaterThan(0));
    const candle = seen.at(-1);
    expect(candle?.time).toBe(candleOpenTime(made.now(), '1m'));
    checkCandles(seen, '1m');
    stop();
    if (source instanceof BinanceSource) expect(source.stream.url()).not.toContain('ethusdt@kline_1m');
  });
});

describe('simulator', () => {
  it('is deterministic for a seed: same ticks and same history; another seed differs', async () => {
    const run = async (seed: number) => {
      const clock = createFakeClock(Date.UTC(2025, 0, 6));
      const sim = createSim({ MARKET_SIM_SEED: seed, MARKET_SIM_TICK_MS: 500 }, clock);
      const ticks: PriceItem[] = [];
      sim.onTicks((batch) => ticks.push(...batch.filter((t) => t.s === 'SOLUSDT')));
      await sim.start();
      clock.advance(10_000);
      const candles = await sim.klines('SOLUSDT', '15m', 100);
      await sim.stop();
      return { ticks, candles };
    };
    const a = await run(42);
    expect(a.ticks).toHaveLength(20);
    expect(await run(42)).toEqual(a);
    expect((await run(43)).ticks).not.toEqual(a.ticks);
  });

  it('gives 1000 candles of every interval, ending at the live price', async () => {
    const clock = createFakeClock(Date.UTC(2025, 2, 3, 9, 41, 12));
    const sim = createSim(simConfig, clock);
    await sim.start();
    clock.advance(3_000);
    const live = await sim.price('ETHUSDT');
    for (const interval of INTERVALS) {
      const candles = await sim.klines('ETHUSDT', interval, 1000);
      expect(candles).toHaveLength(1000);
      checkCandles(candles, interval);
      expect(candles.at(-1)?.time).toBe(candleOpenTime(clock.now(), interval));
      expect(candles.at(-1)?.close).toBe(live?.p);
    }
    await sim.stop();
  });

  it('moves like the coin: realistic start prices and per-tick volatility, with occasional jumps', async () => {
    const clock = createFakeClock(0);
    const sim = createSim({ MARKET_SIM_SEED: 3, MARKET_SIM_TICK_MS: 60_000 }, clock);
    const btc: number[] = [];
    sim.onTicks((batch) => btc.push(batch.find((t) => t.s === 'BTCUSDT')?.p ?? NaN));
    await sim.start();
    clock.advance(60_000 * 5_000);
    const first = btc[0] ?? 0;
    expect(first / (SIM_PROFILES.BTC?.[0] ?? 1)).toBeGreaterThan(0.8);
    expect(first / (SIM_PROFILES.BTC?.[0] ?? 1)).toBeLessThan(1.25);
    const returns = btc.slice(1).map((p, i) => Math.log(p / (btc[i] ?? p)));
    // A robust spread (1.4826 × median absolute return) sees the random walk, not the jumps.
    const sorted = returns.map(Math.abs).sort((a, b) => a - b);
    const sd = 1.4826 * (sorted[Math.floor(sorted.length / 2)] ?? 0);
    const expected = (SIM_PROFILES.BTC?.[1] ?? 0) * Math.sqrt(60_000 / (365 * 86_400_000));
    expect(sd / expected).toBeGreaterThan(0.9);
    expect(sd / expected).toBeLessThan(1.1);
    expect(returns.some((r) => Math.abs(r) > 6 * expected)).toBe(true);
    await sim.stop();
  });

  it('has a profile for every supported symbol, and about 120 symbols', () => {
    expect(SYMBOLS.length).toBeGreaterThanOrEqual(110);
    expect(SYMBOLS.length).toBeLessThanOrEqual(130);
    for (const s of SYMBOLS) expect(SIM_PROFILES[s.ticker], s.ticker).toBeDefined();
    expect(Object.keys(SIM_PROFILES).sort()).toEqual(SYMBOLS.map((s) => s.ticker).sort());
  });
});
