import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { CandleList, PriceQuote, SymbolList, type PriceSocketMessage } from '../../src/contracts/market';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { startBinanceDouble } from '../fixtures/binance-double';
import { freePort } from '../helpers/process';

/** A price-socket client that keeps every frame with its arrival time. */
async function openSocket(url: string) {
  const ws = new WebSocket(url);
  const frames: { at: number; msg: PriceSocketMessage }[] = [];
  ws.on('message', (d) =>
    frames.push({ at: Date.now(), msg: JSON.parse(d.toString()) as PriceSocketMessage }),
  );
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const of = <T extends PriceSocketMessage['type']>(type: T) =>
    frames.filter((f) => f.msg.type === type) as {
      at: number;
      msg: Extract<PriceSocketMessage, { type: T }>;
    }[];
  return { ws, frames, of, send: (o: unknown) => ws.send(JSON.stringify(o)) };
}

const pglite = useDatabase(dbTargets()[0]);

describe('market API (simulator)', () => {
  let t: TestApp;
  let wsUrl: string;
  beforeAll(async () => {
    t = await startTestApp(pglite, { MARKET_SIM_TICK_MS: '50', MARKET_SIM_SEED: '5' });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    wsUrl = `ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/api/ws/prices`;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('lists the supported symbols with names and generated icons', async () => {
    const res = await t.app.inject('/api/symbols');
    expect(res.statusCode).toBe(200);
    const list = SymbolList.parse(res.json());
    expect(list.length).toBeGreaterThanOrEqual(110);
    expect(list[0]).toMatchObject({ symbol: 'BTCUSDT', ticker: 'BTC', pair: 'BTC/USDT', name: 'Bitcoin' });
    expect(list[0]?.icon).toMatch(/^data:image\/svg\+xml,/);
    expect(new Set(list.map((s) => s.symbol)).size).toBe(list.length);
  });

  it('answers the price of a symbol, in any case, and 404 for an unknown one', async () => {
    const res = await t.app.inject('/api/price/BTCUSDT');
    expect(res.statusCode).toBe(200);
    const quote = PriceQuote.parse(res.json());
    expect(quote.symbol).toBe('BTCUSDT');
    expect(quote.price).toBeGreaterThan(10_000);
    expect((await t.app.inject('/api/price/ethusdt')).json()).toMatchObject({ symbol: 'ETHUSDT' });
    for (const bad of ['NOPEUSDT', 'BTC', 'BTC%2FUSDT']) {
      const miss = await t.app.inject(`/api/price/${bad}`);
      expect(miss.statusCode).toBe(404);
      expect(miss.json()).toEqual({ detail: `Unknown symbol: ${decodeURIComponent(bad).toUpperCase()}.` });
    }
  });

  it('answers klines: 500 candles of 15 minutes by default, {time, open, high, low, close, volume}', async () => {
    const res = await t.app.inject('/api/klines?symbol=BTCUSDT');
    expect(res.statusCode).toBe(200);
    const candles = CandleList.parse(res.json());
    expect(candles).toHaveLength(500);
    expect(Object.keys(candles[0] ?? {}).sort()).toEqual(['close', 'high', 'low', 'open', 'time', 'volume']);
    expect((candles[1]?.time ?? 0) - (candles[0]?.time ?? 0)).toBe(15 * 60_000);
    const hourly = CandleList.parse(
      (await t.app.inject('/api/klines?symbol=solusdt&interval=1h&limit=1000')).json(),
    );
    expect(hourly).toHaveLength(1000);
  });

  it('validates the klines query with FastAPI-shaped errors', async () => {
    const bad = await t.app.inject('/api/klines?symbol=BTCUSDT&interval=7m&limit=1001');
    expect(bad.statusCode).toBe(422);
    const detail = (bad.json() as { detail: { loc: string[] }[] }).detail;
    expect(detail.map((d) => d.loc)).toEqual([
      ['query', 'interval'],
      ['query', 'limit'],
    ]);
    expect((await t.app.inject('/api/klines')).statusCode).toBe(422);
    const unknown = await t.app.inject('/api/klines?symbol=NOPEUSDT');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ detail: 'Unknown symbol: NOPEUSDT.' });
  });

  it('reports the simulator in the health check', async () => {
    const health = (await t.app.inject('/api/healthz')).json() as { market: string; standins: string[] };
    expect(health.market).toBe('sim');
    expect(health.standins).toContain('simulated prices');
  });

  it('publishes every price batch on the bus', async () => {
    const batches: { source: string; ticks: unknown[] }[] = [];
    const stop = t.app.bus.subscribe('price.tick', (b) => {
      batches.push(b);
    });
    await vi.waitFor(() => expect(batches.length).toBeGreaterThan(1));
    stop();
    expect(batches[0]?.source).toBe('sim');
    expect(batches[0]?.ticks.length).toBeGreaterThanOrEqual(110);
  });

  it('streams {s, p} for subscribed symbols only, batched at most every 50 ms, after a hello', async () => {
    const c = await openSocket(wsUrl);
    await vi.waitFor(() => expect(c.of('hello')).toHaveLength(1));
    expect(c.of('hello')[0]?.msg).toEqual({
      type: 'hello',
      source: 'sim',
      status: 'ok',
      heartbeatMs: 15_000,
    });
    c.send({ op: 'subscribe', symbols: ['BTCUSDT', 'ethusdt'] });
    await vi.waitFor(() => expect(c.of('prices').length).toBeGreaterThanOrEqual(5), { timeout: 5_000 });
    const prices = c.of('prices');
    const symbols = new Set(prices.flatMap((f) => f.msg.data.map((d) => d.s)));
    expect([...symbols].sort()).toEqual(['BTCUSDT', 'ETHUSDT']);
    // Each client gets at most one batch per 50 ms, however often the sim ticks (first is the snapshot).
    const sendTimes = prices.slice(1).map((f) => f.msg.t);
    for (let i = 1; i < sendTimes.length; i++) {
      expect((sendTimes[i] ?? 0) - (sendTimes[i - 1] ?? 0)).toBeGreaterThanOrEqual(45);
    }
    for (const f of prices)
      for (const d of f.msg.data) expect(Object.keys(d).sort()).toEqual(['p', 's', 't']);
    c.ws.close();
  });

  it('streams the chart candle in progress, and answers bad requests with an error frame', async () => {
    const c = await openSocket(wsUrl);
    c.send({ op: 'candles', symbol: 'BTCUSDT', interval: '1m' });
    await vi.waitFor(() => expect(c.of('candle').length).toBeGreaterThan(1), { timeout: 5_000 });
    const candle = c.of('candle').at(-1)?.msg;
    expect(candle?.s).toBe('BTCUSDT');
    expect(candle?.i).toBe('1m');
    expect((candle?.candle.time ?? 1) % 60_000).toBe(0);
    c.send({ op: 'subscribe', symbols: ['NOPEUSDT'] });
    c.ws.send('{');
    await vi.waitFor(() =>
      expect(c.of('error').map((f) => f.msg.detail)).toEqual([
        'Unknown symbol: NOPEUSDT.',
        'Messages must be JSON.',
      ]),
    );
    c.ws.close();
  });
});

describe('market API on the binance source (MARKET_SOURCE=auto, local double)', () => {
  it('uses Binance when it answers, and reports it', async () => {
    const double = await startBinanceDouble({ BTCUSDT: 101_234.5 });
    const ticking = setInterval(() => double.tick(), 20);
    const t = await startTestApp(pglite, {
      MARKET_SOURCE: 'auto',
      BINANCE_FAPI_URL: double.restUrl,
      BINANCE_FSTREAM_URL: double.streamUrl,
    });
    try {
      const health = (await t.app.inject('/api/healthz')).json() as { market: string; standins: string[] };
      expect(health.market).toBe('binance');
      expect(health.standins).not.toContain('simulated prices');
      expect((await t.app.inject('/api/price/BTCUSDT')).json()).toMatchObject({
        symbol: 'BTCUSDT',
        price: 101_234.5,
      });
      const candles = CandleList.parse(
        (await t.app.inject('/api/klines?symbol=BTCUSDT&interval=1h&limit=5')).json(),
      );
      expect(candles).toHaveLength(5);
      expect(double.requests).toContain('/fapi/v1/klines?symbol=BTCUSDT&interval=1h&limit=5');
    } finally {
      clearInterval(ticking);
      await t.close();
      await double.close();
    }
  });

  it('falls back to the simulator when Binance is unreachable', async () => {
    const port = await freePort();
    const t = await startTestApp(pglite, {
      MARKET_SOURCE: 'auto',
      BINANCE_FAPI_URL: `http://127.0.0.1:${port}`,
      BINANCE_FSTREAM_URL: `ws://127.0.0.1:${port}`,
    });
    try {
      expect(((await t.app.inject('/api/healthz')).json() as { market: string }).market).toBe('sim');
      expect((await t.app.inject('/api/price/BTCUSDT')).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});
