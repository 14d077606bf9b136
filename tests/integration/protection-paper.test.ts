import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { positionProtections } from '../../server/db/schema';
import { OrderResponse, Position, type PositionsMessage } from '../../src/contracts/trading';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';
import { startBinanceDouble, type BinanceDouble } from '../fixtures/binance-double';

const pglite = useDatabase(dbTargets()[0]);

/**
 * Protection on the paper exchange, marked to Binance's mark price (the local double): the legs rest on
 * the paper exchange as conditional orders and fire on its mark, as Binance's would.
 */
describe('position protection on the paper exchange', () => {
  let double: BinanceDouble;
  let t: TestApp;
  let auth: { authorization: string };
  let messages: PositionsMessage[];
  let ws: WebSocket;

  beforeAll(async () => {
    double = await startBinanceDouble({ BTCUSDT: 60_000, ETHUSDT: 3_000, SOLUSDT: 150 });
    t = await startTestApp(pglite, {
      MARKET_SOURCE: 'binance',
      BINANCE_FAPI_URL: double.restUrl,
      BINANCE_FSTREAM_URL: double.streamUrl,
      PROTECTION_RECONCILE_S: '1',
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    await vi.waitFor(() => expect(double.connections()).toBe(1));
    auth = await signUpAndLogIn(t.app, 'guarded');
    const ticket = await t.app.inject({ method: 'POST', url: '/api/ws/ticket', headers: auth });
    const port = (t.app.server.address() as AddressInfo).port;
    messages = [];
    ws = new WebSocket(
      `ws://127.0.0.1:${port}/api/ws/positions?ticket=${ticket.json<{ ticket: string }>().ticket}`,
    );
    ws.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString()) as PositionsMessage));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    for (const [s, p] of [
      ['BTCUSDT', 60_000],
      ['ETHUSDT', 3_000],
      ['SOLUSDT', 150],
    ] as const) {
      double.marks.set(s, p);
    }
    double.markPrice();
  });
  afterAll(async () => {
    ws?.close();
    await t?.close();
    await double?.close();
  });

  const order = (payload: object) =>
    t.app.inject({ method: 'POST', url: '/api/orders', headers: auth, payload });
  const positions = async () =>
    ((await t.app.inject({ url: '/api/positions', headers: auth })).json() as unknown[]).map((p) =>
      Position.parse(p),
    );
  const put = (symbol: string, payload: object) =>
    t.app.inject({ method: 'PUT', url: `/api/positions/${symbol}/protection`, headers: auth, payload });
  const mark = async (symbol: string, price: number) => {
    double.marks.set(symbol, price);
    double.prices.set(symbol, price);
    double.tick();
    double.markPrice();
    await new Promise((r) => setTimeout(r, 50));
  };

  it('rests a stop and a target on the exchange with the order, and the positions row says so', async () => {
    const res = await order({
      symbol: 'BTC/USDT',
      side: 'long',
      amount: 1_000,
      protection: { stop_loss_pct: 2, take_profit_pct: 5 },
    });
    expect(res.statusCode).toBe(200);
    const body = OrderResponse.parse(res.json());
    expect(body.protection).not.toBeNull();
    const entry = body.price;
    expect(body.protection?.stop_loss).toEqual({
      price: expect.closeTo(entry * 0.98, 0) as number,
      on: 'exchange',
      state: 'resting',
    });
    expect(body.protection?.take_profit).toMatchObject({ on: 'exchange', state: 'resting' });
    expect(body.protection?.take_profit?.price).toBeCloseTo(entry * 1.05, 0);
    expect(body.protection?.unprotected_ms).toBeGreaterThanOrEqual(0);
    expect(body.protection?.note).toBeNull();

    const [row] = await positions();
    expect(row?.protection.stop_loss).toMatchObject({ on: 'exchange', state: 'resting' });
    expect(row?.protection.take_profit).toMatchObject({ on: 'exchange', state: 'resting' });
  });

  it('refuses a stop that would fire at once and a trailing stop outside 0.1–10 %, with clear 422s', async () => {
    const above = await put('BTCUSDT', { stop_loss_price: 70_000 });
    expect(above.statusCode).toBe(422);
    expect(JSON.stringify(above.json())).toContain("A long's stop loss must be below the price");
    const trail = await put('BTCUSDT', { trailing_pct: 20 });
    expect(trail.statusCode).toBe(422);
    expect(JSON.stringify(trail.json())).toContain('Trailing stop must be between 0.1% and 10%.');
    const both = await put('BTCUSDT', { stop_loss_pct: 2, stop_loss_price: 50_000 });
    expect(both.statusCode).toBe(422);
    expect(JSON.stringify(both.json())).toContain('Give the stop loss as a percent or a price, not both.');
    const none = await put('SOLUSDT', { stop_loss_pct: 2 });
    expect(none.statusCode).toBe(404);
    // The legs in place were not touched by the refusals.
    const [row] = await positions();
    expect(row?.protection.stop_loss?.state).toBe('resting');
  });

  it('fires the stop on the mark, cancels the target and tells the user', async () => {
    const [before] = await positions();
    const stop = before!.protection.stop_loss!.price;
    await mark('BTCUSDT', stop - 50);
    await vi.waitFor(async () => expect(await positions()).toEqual([]), { timeout: 5_000 });
    await vi.waitFor(
      () =>
        expect(messages.find((m) => m.type === 'protection' && m.event === 'fired')).toMatchObject({
          symbol: 'BTC/USDT',
          leg: 'stop_loss',
        }),
      { timeout: 5_000 },
    );
    // The row is gone: nothing rests to open a new position.
    await vi.waitFor(async () => expect(await t.database.db.select().from(positionProtections)).toEqual([]), {
      timeout: 5_000,
    });
    await mark('BTCUSDT', 60_000);
  });

  it('replaces protection on an open position, moves the stop to break-even and removes it', async () => {
    const res = await order({ symbol: 'ETH/USDT', side: 'short', amount: 600 });
    expect(res.statusCode).toBe(200);
    const set = await put('ETHUSDT', { stop_loss_pct: 3, take_profit_price: 2_800, trailing_pct: 1.5 });
    expect(set.statusCode).toBe(200);
    const placed = set.json<{ message: string; protection: { stop_loss: { price: number } } }>();
    expect(placed.message).toContain('ETH/USDT: stop loss');
    expect(placed.protection.stop_loss.price).toBeGreaterThan(3_000);
    const [row] = await positions();
    expect(row?.protection).toMatchObject({
      stop_loss: { on: 'exchange', state: 'resting' },
      take_profit: { price: 2_800, on: 'exchange', state: 'resting' },
      trailing: { callback_pct: 1.5, on: 'exchange', state: 'resting' },
    });

    // Break-even needs the price to have moved in the position's favour first.
    await mark('ETHUSDT', 2_950);
    const be = await t.app.inject({
      method: 'POST',
      url: '/api/positions/ETHUSDT/protection/break-even',
      headers: auth,
    });
    expect(be.statusCode).toBe(200);
    const [moved] = await positions();
    expect(moved?.protection.stop_loss?.price).toBeCloseTo(moved!.entryPrice, -1);
    expect(moved?.protection.take_profit?.price).toBe(2_800);

    const off = await t.app.inject({
      method: 'DELETE',
      url: '/api/positions/ETHUSDT/protection',
      headers: auth,
    });
    expect(off.statusCode).toBe(200);
    const [bare] = await positions();
    expect(bare?.protection).toEqual({ stop_loss: null, take_profit: null, trailing: null, exit_at: null });
    await mark('ETHUSDT', 3_000);
  });

  it('keeps one set of legs when 30 replacements race on one position', async () => {
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => put('ETHUSDT', { stop_loss_pct: 1 + i / 10 })),
    );
    expect(answers.every((a) => a.statusCode === 200)).toBe(true);
    const rows = await t.database.db.select().from(positionProtections);
    expect(rows).toHaveLength(1);
    const [row] = rows;
    // The last writer's stop is the one resting, under its own client id.
    expect(row?.legs.sl?.state).toBe('resting');
    expect(Object.keys(row!.legs)).toEqual(['sl']);
  });

  it('leaves legs that already rest alone when the same protection is asked again, and moves only the exit', async () => {
    expect((await put('ETHUSDT', { stop_loss_pct: 2.5, take_profit_pct: 4 })).statusCode).toBe(200);
    const [first] = await t.database.db.select().from(positionProtections);
    expect((await put('ETHUSDT', { stop_loss_pct: 2.5, take_profit_pct: 4 })).statusCode).toBe(200);
    const again = await put('ETHUSDT', { stop_loss_pct: 2.5, take_profit_pct: 4, exit_after_min: 45 });
    expect(again.statusCode).toBe(200);
    const [after] = await t.database.db.select().from(positionProtections);
    expect(after?.legs.sl?.cid).toBe(first?.legs.sl?.cid);
    expect(after?.legs.tp?.cid).toBe(first?.legs.tp?.cid);
    expect(after?.exitState).toBe('open');
    expect(after!.exitAt!.getTime() - Date.now()).toBeGreaterThan(44 * 60_000);
  });

  it('runs a time exit and retries it until the position is closed', async () => {
    const set = await put('ETHUSDT', { exit_after_min: 5 });
    expect(set.statusCode).toBe(200);
    expect(set.json<{ protection: { exit_at: string } }>().protection.exit_at).not.toBeNull();
    // Five minutes pass.
    await t.database.db
      .update(positionProtections)
      .set({ exitAt: new Date(Date.now() - 1_000) })
      .where(eq(positionProtections.symbol, 'ETHUSDT'));
    await vi.waitFor(async () => expect(await positions()).toEqual([]), { timeout: 6_000 });
    await vi.waitFor(
      () =>
        expect(messages.find((m) => m.type === 'protection' && m.event === 'exited')).toMatchObject({
          symbol: 'ETH/USDT',
          leg: 'exit',
        }),
      { timeout: 5_000 },
    );
  });
});
