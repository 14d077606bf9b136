import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { Position, type PositionsMessage } from '../../src/contracts/trading';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';
import { startBinanceDouble, type BinanceDouble } from '../fixtures/binance-double';

const pglite = useDatabase(dbTargets()[0]);

/** The app on the Binance double: marks arrive as `!markPrice@arr@1s`, last prices as `!miniTicker@arr`. */
describe('paper positions on the Binance mark price (local double)', () => {
  let double: BinanceDouble;
  let t: TestApp;
  let auth: { authorization: string };
  let messages: PositionsMessage[];
  let ws: WebSocket;
  const lastTicks: number[] = [];

  beforeAll(async () => {
    double = await startBinanceDouble({ BTCUSDT: 60_000, ETHUSDT: 3_000 });
    t = await startTestApp(pglite, {
      MARKET_SOURCE: 'binance',
      BINANCE_FAPI_URL: double.restUrl,
      BINANCE_FSTREAM_URL: double.streamUrl,
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    await vi.waitFor(() => expect(double.connections()).toBe(1));
    t.app.bus.subscribe('price.tick', ({ ticks }) => {
      for (const tick of ticks) if (tick.s === 'BTCUSDT') lastTicks.push(tick.p);
    });
    auth = await signUpAndLogIn(t.app, 'marked');
    const ticket = await t.app.inject({ method: 'POST', url: '/api/ws/ticket', headers: auth });
    const port = (t.app.server.address() as AddressInfo).port;
    messages = [];
    ws = new WebSocket(
      `ws://127.0.0.1:${port}/api/ws/positions?ticket=${ticket.json<{ ticket: string }>().ticket}`,
    );
    ws.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString()) as PositionsMessage));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  });
  afterAll(async () => {
    ws?.close();
    await t?.close();
    await double?.close();
  });

  const positions = async () =>
    ((await t.app.inject({ url: '/api/positions', headers: auth })).json() as unknown[]).map((p) =>
      Position.parse(p),
    );
  /** The last snapshot pushed over the socket whose BTC position is marked at `mark`. */
  const pushedAt = (mark: number) =>
    vi.waitFor(() => {
      const pushed = messages.findLast(
        (m) => m.type === 'snapshot' && m.positions.some((p) => p.markPrice === mark),
      );
      expect(pushed).toBeDefined();
    });

  it('liquidates a long when the mark crosses its liquidation price, not when the last price does', async () => {
    const placed = await t.app.inject({
      method: 'POST',
      url: '/api/orders',
      headers: auth,
      payload: { symbol: 'BTC/USDT', side: 'long', type: 'market', amount: 1_000 },
    });
    expect(placed.statusCode).toBe(200);
    const [opened] = await positions();
    // No mark yet: marked at the last price.
    expect(opened).toMatchObject({ symbol: 'BTC/USDT', side: 'long', markPrice: 60_000 });
    const lp = opened!.liquidationPrice;
    expect(lp).toBeGreaterThan(50_000);
    expect(lp).toBeLessThan(59_000);

    // A mark arrives: positions are marked at it and the socket is told.
    double.marks.set('BTCUSDT', 59_990);
    double.markPrice();
    await pushedAt(59_990);

    // The last trade falls through the liquidation price while the mark stays above it: nothing happens.
    const below = Math.floor(lp) - 500;
    const above = Math.ceil(lp) + 500;
    double.prices.set('BTCUSDT', below);
    double.tick();
    double.marks.set('BTCUSDT', above);
    double.markPrice();
    await vi.waitFor(() => expect(lastTicks).toContain(below));
    await pushedAt(above);
    await new Promise((r) => setTimeout(r, 200));
    const [held] = await positions();
    expect(held).toMatchObject({ symbol: 'BTC/USDT', markPrice: above });
    expect(held!.unrealizedPnl).toBeCloseTo(held!.size * (above - held!.entryPrice), 6);
    expect(messages.some((m) => m.type === 'liquidation')).toBe(false);

    // The last trade recovers, and then the mark crosses: liquidated at the liquidation price.
    double.prices.set('BTCUSDT', 60_000);
    double.tick();
    await vi.waitFor(() => expect(lastTicks.at(-1)).toBe(60_000));
    double.marks.set('BTCUSDT', Math.floor(lp) - 1);
    double.markPrice();
    await vi.waitFor(() => expect(messages.some((m) => m.type === 'liquidation')).toBe(true));
    const liquidation = messages.find((m) => m.type === 'liquidation');
    expect(liquidation).toMatchObject({ type: 'liquidation', symbol: 'BTCUSDT' });
    expect(liquidation?.type === 'liquidation' && liquidation.price).toBeCloseTo(lp, 2);
    expect(await positions()).toEqual([]);
  });
});
