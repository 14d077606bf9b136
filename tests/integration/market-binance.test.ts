import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FeedStatus, PriceItem } from '../../src/contracts/market';
import { BinanceSource } from '../../server/modules/market/binance/binance-source';
import { resolveMarketSource } from '../../server/modules/market/market-resolver';
import { createFakeClock } from '../../src/services/testing/fakeClock';
import { startBinanceDouble, type BinanceDouble } from '../fixtures/binance-double';
import { freePort } from '../helpers/process';

function recordingLog() {
  const lines: string[] = [];
  return {
    lines,
    info: (_: object, msg: string) => lines.push(`info ${msg}`),
    warn: (_: object, msg: string) => lines.push(`warn ${msg}`),
  };
}

describe('binance source against the local double', () => {
  let double: BinanceDouble;
  let source: BinanceSource | undefined;
  afterEach(async () => {
    await source?.stop();
    source = undefined;
    await double?.close();
  });

  /** A started source on a fake clock (timers only; the sockets are real). */
  async function started(stream = {}) {
    double = await startBinanceDouble();
    const clock = createFakeClock(1_000_000);
    const log = recordingLog();
    const s = new BinanceSource({ restUrl: double.restUrl, streamUrl: double.streamUrl, clock, log, stream });
    source = s;
    const statuses: FeedStatus[] = [];
    const ticks: PriceItem[][] = [];
    const marks: PriceItem[][] = [];
    s.onStatus((st) => statuses.push(st));
    s.onTicks((batch) => ticks.push([...batch]));
    s.onMarks((batch) => marks.push([...batch]));
    const ready = s.start();
    await vi.waitFor(() => expect(double.connections()).toBe(1));
    double.tick();
    await ready;
    return { s, clock, log, statuses, ticks, marks };
  }

  it('connects to the combined market stream for all mini tickers and mark prices, and answers pings', async () => {
    const { s, ticks } = await started();
    expect(double.requests.at(-1)).toBe('/market/stream?streams=!miniTicker@arr/!markPrice@arr@1s');
    expect(ticks[0]).toEqual([
      { s: 'BTCUSDT', p: 97_000.1, t: expect.any(Number) },
      { s: 'ETHUSDT', p: 3_400.25, t: expect.any(Number) },
    ]);
    expect(await double.ping()).toBe(1);
    expect(s.status()).toBe('ok');
  });

  it('reads mark prices apart from last prices, stamped with the event time', async () => {
    const { ticks, marks } = await started();
    double.marks.set('BTCUSDT', 96_950.12345678);
    double.marks.set('BTCUSDT_260626', 98_100); // a delivery contract: no funding rate
    double.markPrice(1_700_000_000_123);
    await vi.waitFor(() => expect(marks).toHaveLength(1));
    expect(marks[0]).toEqual([
      { s: 'BTCUSDT', p: 96_950.12345678, t: 1_700_000_000_123 },
      { s: 'ETHUSDT', p: 3_400.25, t: 1_700_000_000_123 },
      { s: 'BTCUSDT_260626', p: 98_100, t: 1_700_000_000_123 },
    ]);
    // A mark is not a trade: the last prices have not moved.
    expect(ticks).toHaveLength(1);
    expect(ticks[0]?.[0]?.p).toBe(97_000.1);
  });

  it('reconnects after a disconnect with exponential back-off and jitter, and recovers its status', async () => {
    // Equal jitter with the random number fixed at 0.5: three quarters of 1 s, then of 2 s.
    const stream = { backoffMinMs: 1_000, backoffMaxMs: 4_000, random: () => 0.5 };
    const { s, clock, statuses, log } = await started(stream);
    double.disconnectAll();
    await vi.waitFor(() => expect(s.status()).toBe('degraded'));
    clock.advance(749);
    await new Promise((r) => setTimeout(r, 50));
    expect(double.connections()).toBe(0);
    clock.advance(1);
    await vi.waitFor(() => expect(double.connections()).toBe(1));
    expect(s.stream.stats.connects).toBe(2);

    // No data since the reconnect: the next failure waits twice as long.
    double.disconnectAll();
    await vi.waitFor(() => expect(double.connections()).toBe(0));
    await vi.waitFor(() => expect(log.lines.filter((l) => l.includes('closed')).length).toBe(2));
    clock.advance(1_499);
    await new Promise((r) => setTimeout(r, 50));
    expect(double.connections()).toBe(0);
    clock.advance(1);
    await vi.waitFor(() => expect(double.connections()).toBe(1));

    double.tick();
    await vi.waitFor(() => expect(s.status()).toBe('ok'));
    expect(statuses).toEqual(['ok', 'degraded', 'ok']);
  });

  it('marks the feed degraded and reconnects when no data arrives for the stale limit', async () => {
    const { s, clock, log } = await started({ staleMs: 10_000 });
    clock.advance(9_000);
    expect(s.status()).toBe('ok');
    clock.advance(3_600); // over 10 s without a frame, at the next watchdog check (every 2.5 s)
    expect(s.status()).toBe('degraded');
    expect(s.stream.stats.stale).toBe(1);
    expect(log.lines).toContain('warn binance stream went quiet; reconnecting');
    await vi.waitFor(() => expect(double.connections()).toBe(0));
    clock.advance(1_000);
    await vi.waitFor(() => expect(double.connections()).toBe(1));
    double.tick();
    await vi.waitFor(() => expect(s.status()).toBe('ok'));
  });

  it('reconnects before the 24 h connection limit', async () => {
    const { s, clock } = await started({ staleMs: 48 * 3_600_000 });
    clock.advance(23 * 3_600_000 + 29 * 60_000);
    expect(s.stream.stats.rotations).toBe(0);
    clock.advance(60_000);
    expect(s.stream.stats.rotations).toBe(1);
    await vi.waitFor(() => expect(s.stream.stats.connects).toBe(2));
    await vi.waitFor(() => expect(double.connections()).toBe(1));
    double.tick();
    await vi.waitFor(() => expect(s.status()).toBe('ok'));
  });

  it('ignores and counts a malformed frame, and keeps streaming', async () => {
    const { s, ticks, marks, log } = await started();
    double.raw('{"stream":"!miniTicker@arr","data":[{"e":"24hrMiniTicker","s":"BTCUSDT","c":"abc"}]}');
    double.raw('not json at all');
    double.raw(
      '{"stream":"!markPrice@arr@1s","data":[{"e":"markPriceUpdate","E":1,"s":"BTCUSDT","p":"","i":"1","r":"0","T":0}]}',
    );
    double.raw('{"stream":"!markPrice@arr@1s","data":{"e":"markPriceUpdate"}}');
    double.prices.set('BTCUSDT', 98_000);
    double.tick();
    double.marks.set('BTCUSDT', 97_990);
    double.markPrice();
    await vi.waitFor(() => expect(ticks.at(-1)?.[0]?.p).toBe(98_000));
    await vi.waitFor(() => expect(marks.at(-1)?.[0]?.p).toBe(97_990));
    expect(marks).toHaveLength(1);
    expect(s.malformed).toBe(4);
    expect(log.lines.filter((l) => l.includes('malformed'))).toHaveLength(4);
    expect(s.status()).toBe('ok');
  });

  it('subscribes kline streams while clients watch, and unsubscribes after the last leaves', async () => {
    const { s } = await started();
    const a = s.watchCandles('BTCUSDT', '15m', () => undefined);
    const b = s.watchCandles('BTCUSDT', '15m', () => undefined);
    await vi.waitFor(() =>
      expect(double.streams()[0]).toEqual(['!markPrice@arr@1s', '!miniTicker@arr', 'btcusdt@kline_15m']),
    );
    a();
    await new Promise((r) => setTimeout(r, 50));
    expect(double.streams()[0]).toContain('btcusdt@kline_15m');
    b();
    await vi.waitFor(() => expect(double.streams()[0]).toEqual(['!markPrice@arr@1s', '!miniTicker@arr']));
  });

  it('reads single prices and klines over REST, shaped as Binance sends them', async () => {
    double = await startBinanceDouble({ SOLUSDT: 187.5 });
    source = new BinanceSource({
      restUrl: double.restUrl,
      streamUrl: double.streamUrl,
      clock: createFakeClock(),
      log: recordingLog(),
    });
    expect(await source.price('SOLUSDT')).toEqual({ s: 'SOLUSDT', p: 187.5, t: expect.any(Number) });
    const candles = await source.klines('SOLUSDT', '1h', 3);
    expect(candles).toHaveLength(3);
    expect(candles[0]).toEqual({
      time: expect.any(Number),
      open: expect.any(Number),
      high: expect.any(Number),
      low: expect.any(Number),
      close: expect.any(Number),
      volume: 12.345,
    });
    expect(double.requests).toEqual([
      '/fapi/v1/ticker/price?symbol=SOLUSDT',
      '/fapi/v1/klines?symbol=SOLUSDT&interval=1h&limit=3',
    ]);
    await expect(source.price('NOPEUSDT')).rejects.toThrow('400');
  });
});

describe('MARKET_SOURCE resolution', () => {
  const base = { MARKET_SIM_SEED: 1, MARKET_SIM_TICK_MS: 1_000 };

  it('auto uses Binance when it answers', async () => {
    const double = await startBinanceDouble();
    const ticking = setInterval(() => double.tick(), 20);
    const log = recordingLog();
    const source = await resolveMarketSource(
      {
        ...base,
        MARKET_SOURCE: 'auto',
        BINANCE_FAPI_URL: double.restUrl,
        BINANCE_FSTREAM_URL: double.streamUrl,
      },
      { clock: createFakeClock(), log },
    );
    clearInterval(ticking);
    expect(source.kind).toBe('binance');
    expect(log.lines).toContain('info market data: Binance public feed (MARKET_SOURCE=auto)');
    await source.stop();
    await double.close();
  });

  it('auto falls back to the simulator at once when Binance refuses, and says so', async () => {
    const port = await freePort();
    const log = recordingLog();
    const t0 = Date.now();
    const source = await resolveMarketSource(
      {
        ...base,
        MARKET_SOURCE: 'auto',
        BINANCE_FAPI_URL: `http://127.0.0.1:${port}`,
        BINANCE_FSTREAM_URL: `ws://127.0.0.1:${port}`,
      },
      { clock: createFakeClock(), log },
    );
    expect(source.kind).toBe('sim');
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(log.lines).toContain(
      'warn market data: Binance unreachable, using the simulator (MARKET_SOURCE=auto)',
    );
    await source.stop();
  });

  it('auto falls back when Binance accepts but sends nothing before the probe time', async () => {
    const double = await startBinanceDouble();
    const clock = createFakeClock();
    const resolving = resolveMarketSource(
      {
        ...base,
        MARKET_SOURCE: 'auto',
        BINANCE_FAPI_URL: double.restUrl,
        BINANCE_FSTREAM_URL: double.streamUrl,
      },
      { clock, log: recordingLog(), probeMs: 4_000 },
    );
    await vi.waitFor(() => expect(double.connections()).toBe(1));
    clock.advance(4_000);
    const source = await resolving;
    expect(source.kind).toBe('sim');
    await vi.waitFor(() => expect(double.connections()).toBe(0));
    await source.stop();
    await double.close();
  });
});
