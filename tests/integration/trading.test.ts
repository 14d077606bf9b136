import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app';
import { orderRequests, paperLedger, users } from '../../server/db/schema';
import { clientIdFor } from '../../server/modules/trading/order-request';
import {
  CloseAllResponse,
  CloseResponse,
  OrderPreview,
  OrderResponse,
  Position,
} from '../../src/contracts/trading';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';

describe.each(dbTargets())('trading API on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let auth: { authorization: string };
  let userId: string;

  beforeAll(async () => {
    t = await startTestApp(target);
    auth = await signUpAndLogIn(t.app, 'trader');
    const [me] = await t.database.db.select({ id: users.id }).from(users).where(eq(users.username, 'trader'));
    userId = me!.id;
    // The exchange's own refusals are under test here: a max order of the trader's own above the
    // default (five times the paper balance) lets the larger orders reach it.
    const wide = await t.app.inject({
      method: 'PUT',
      url: '/api/rules/risk',
      headers: auth,
      payload: { max_order_usd: 1_000_000 },
    });
    expect(wide.statusCode, wide.body).toBe(200);
  });
  afterAll(() => t.close());

  const order = (body: object, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: '/api/orders', headers: { ...auth, ...headers }, payload: body });

  it('refuses every trading route without a token', async () => {
    for (const [method, url] of [
      ['POST', '/api/orders'],
      ['GET', '/api/positions'],
      ['POST', '/api/close_position'],
      ['POST', '/api/close_all_positions'],
      ['GET', '/api/account/balance'],
      ['POST', '/api/account/paper/reset'],
    ] as const) {
      const res = await t.app.inject({ method, url, payload: method === 'POST' ? {} : undefined });
      expect(res.statusCode, url).toBe(401);
      expect(res.json()).toEqual({ detail: 'Not authenticated' });
    }
  });

  it('places a market order for a USDT total and shows the position', async () => {
    const res = await order({ symbol: 'ETH/USDT', side: 'long', type: 'market', amount: 500 });
    expect(res.statusCode).toBe(200);
    const body = OrderResponse.parse(res.json());
    expect(body).toMatchObject({ symbol: 'ETH/USDT', side: 'buy', status: 'filled' });
    // Sized to the nearest 0.001 ETH: within half a step of 500 USDT, and the answer says what it is worth.
    expect(body.notional).toBeCloseTo(body.quantity * body.price, 8);
    expect(Math.abs(body.notional - 500)).toBeLessThanOrEqual((0.001 * body.price) / 2 + 1e-9);
    expect(body.requested).toBe(500);
    expect(body.fee).toBeCloseTo(body.quantity * body.price * 0.0005, 8);

    const positions = (await t.app.inject({ url: '/api/positions', headers: auth })).json() as unknown[];
    const eth = positions.map((p) => Position.parse(p)).find((p) => p.symbol === 'ETH/USDT');
    expect(eth).toMatchObject({ side: 'long', size: body.quantity, leverage: 10 });
    expect(eth!.margin).toBeCloseTo((body.quantity * body.price) / 10, 6);
    expect(eth!.liquidationPrice).toBeLessThan(eth!.entryPrice);
  });

  it('previews an order without placing it', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/orders/preview',
      headers: auth,
      payload: { symbol: 'BTC/USDT', side: 'long', type: 'market', amount: 5000 },
    });
    const preview = OrderPreview.parse(res.json());
    expect(preview).toMatchObject({ symbol: 'BTC/USDT', side: 'buy', leverage: 10 });
    expect(Math.abs(preview.notional - 5000)).toBeLessThanOrEqual(preview.stepNotional / 2 + 1e-9);
    expect(preview).toMatchObject({ requested: 5000, minNotional: 100 });
    expect(preview.margin).toBeCloseTo(preview.notional / 10, 6);
    expect(preview.fee).toBeCloseTo(preview.notional * 0.0005, 6);
    expect(preview.liquidationPrice!).toBeLessThan(preview.price);
    const positions = (await t.app.inject({ url: '/api/positions', headers: auth })).json() as Position[];
    expect(positions.some((p) => p.symbol === 'BTC/USDT')).toBe(false);
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/orders/preview',
      headers: auth,
      payload: { symbol: 'BTC/USDT', side: 'long', type: 'market', amount: 50 },
    });
    expect((refused.json() as { detail: string }).detail).toMatch(
      /^The minimum order for BTC\/USDT is 100 USDT\./,
    );
  });

  it.each([
    [{ symbol: 'ETH/USDT', side: 'long', type: 'market', amount: 0 }, 'Total must be greater than zero.'],
    [
      { symbol: 'ETH/USDT', side: 'up', type: 'market', amount: 10 },
      'Side must be buy, sell, long or short.',
    ],
    [{ symbol: 'ETH/USDT', side: 'long', type: 'limit', amount: 10 }, 'A limit order needs a price.'],
    [{ symbol: 'ETH/USDT', side: 'long', type: 'stop', amount: 10 }, 'Order type must be market or limit.'],
    [{ symbol: 'ETH-EUR', side: 'long', type: 'market', amount: 10 }, 'Symbol must look like BTC/USDT.'],
  ])('answers %o with a 422 naming the problem', async (body, msg) => {
    const res = await order(body);
    expect(res.statusCode).toBe(422);
    expect((res.json() as { detail: { msg: string }[] }).detail.map((d) => d.msg)).toContain(msg);
  });

  it("passes the exchange's refusals on as a 400 detail", async () => {
    const unknown = await order({ symbol: 'FOO/USDT', side: 'long', type: 'market', amount: 100 });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toEqual({ detail: 'Invalid symbol.' });
    const tiny = await order({ symbol: 'BTC/USDT', side: 'long', type: 'market', amount: 10 });
    expect((tiny.json() as { detail: string }).detail).toMatch(
      /^The minimum order for BTC\/USDT is 100 USDT\./,
    );
    const huge = await order({ symbol: 'SOL/USDT', side: 'short', type: 'market', amount: 150_000 });
    expect((huge.json() as { detail: string }).detail).toMatch(
      /^Margin is insufficient: your free margin pays for at most [\d,.]+ USDT of SOL\/USDT, not 150,000 USDT\.$/,
    );
  });

  it('answers a retried Idempotency-Key with the first fill, also when retried concurrently', async () => {
    const key = randomUUID();
    const body = { symbol: 'SOL/USDT', side: 'short', type: 'market', amount: 300 };
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => order(body, { 'idempotency-key': key })),
    );
    const ids = new Set(answers.map((a) => (a.json() as { id: string }).id));
    expect(answers.map((a) => a.statusCode)).toEqual(Array.from({ length: 30 }, () => 200));
    expect(ids.size).toBe(1);
    // One fill booked, and the key recorded filled by it (in the same statement, on paper).
    const clientOrderId = clientIdFor(userId, key);
    const fills = await t.database.db
      .select()
      .from(paperLedger)
      .where(and(eq(paperLedger.userId, userId), eq(paperLedger.clientOrderId, clientOrderId)));
    expect(fills).toHaveLength(1);
    const [held] = await t.database.db
      .select()
      .from(orderRequests)
      .where(and(eq(orderRequests.userId, userId), eq(orderRequests.idempotencyKey, key)));
    expect(held).toMatchObject({ state: 'filled', orderId: [...ids][0], clientOrderId, symbol: 'SOLUSDT' });
    const again = await order(body, { 'idempotency-key': key });
    expect((again.json() as { id: string }).id).toBe([...ids][0]);
    const sol = ((await t.app.inject({ url: '/api/positions', headers: auth })).json() as Position[]).find(
      (p) => p.symbol === 'SOL/USDT',
    );
    expect(sol!.size).toBeCloseTo((answers[0]!.json() as { quantity: number }).quantity, 8);

    const other = await order({ ...body, amount: 301 }, { 'idempotency-key': key });
    expect(other.statusCode).toBe(409);
    expect(other.json()).toEqual({ detail: 'This Idempotency-Key was already used for a different order.' });
  });

  it('answers a retried key with its refusal, even once the order would go through', async () => {
    const key = randomUUID();
    const body = { symbol: 'SOL/USDT', side: 'short', type: 'market', amount: 150_000 };
    const refused = await order(body, { 'idempotency-key': key });
    expect(refused.statusCode).toBe(400);
    const { detail } = refused.json() as { detail: string };
    expect(detail).toMatch(/^Margin is insufficient/);
    const retries = await Promise.all(
      Array.from({ length: 30 }, () => order(body, { 'idempotency-key': key })),
    );
    for (const retry of retries) {
      expect(retry.statusCode).toBe(400);
      expect(retry.json()).toEqual({ detail });
    }
    const [held] = await t.database.db
      .select()
      .from(orderRequests)
      .where(and(eq(orderRequests.userId, userId), eq(orderRequests.idempotencyKey, key)));
    expect(held).toMatchObject({ state: 'failed', error: detail, orderId: null });
  });

  it('keeps the Idempotency-Key promise across a server restart', async () => {
    const key = randomUUID();
    const body = { symbol: 'BNB/USDT', side: 'long', type: 'market', amount: 200 };
    const first = (await order(body, { 'idempotency-key': key })).json() as { id: string };
    const restarted = await buildApp(t.config, { logger: false, database: t.database });
    await restarted.ready();
    try {
      const retry = await restarted.inject({
        method: 'POST',
        url: '/api/orders',
        headers: { ...auth, 'idempotency-key': key },
        payload: body,
      });
      expect((retry.json() as { id: string }).id).toBe(first.id);
      const positions = (
        await restarted.inject({ url: '/api/positions', headers: auth })
      ).json() as Position[];
      expect(positions.filter((p) => p.symbol === 'BNB/USDT')).toHaveLength(1);
    } finally {
      await restarted.close();
    }
  });

  it('closes one position, says when there is none, and closes all', async () => {
    const closed = await t.app.inject({
      method: 'POST',
      url: '/api/close_position',
      headers: auth,
      payload: { symbol: 'ETH/USDT' },
    });
    expect(closed.statusCode).toBe(200);
    const fill = CloseResponse.parse(closed.json());
    expect(fill.message).toMatch(
      /^Closed ETH\/USDT long: .*, realised [+-]?\d+\.\d\d USDT, fee \d+\.\d\d USDT\.$/,
    );
    expect(fill.fill).toMatchObject({
      symbol: 'ETH/USDT',
      side: 'sell',
      account: { venue: 'paper', mode: 'paper', keyHint: null },
    });
    expect(fill.fill.fee).toBeCloseTo(fill.fill.quantity * fill.fill.price * 0.0005, 8);
    const none = await t.app.inject({
      method: 'POST',
      url: '/api/close_position',
      headers: auth,
      payload: { symbol: 'ETH/USDT' },
    });
    expect(none.statusCode).toBe(404);
    expect(none.json()).toEqual({ detail: 'No open ETH/USDT position.' });
    const all = await t.app.inject({ method: 'POST', url: '/api/close_all_positions', headers: auth });
    const closedAll = CloseAllResponse.parse(all.json());
    expect(closedAll.message).toMatch(
      /^Closed 2 positions: .*; realised [+-]?\d+\.\d\d USDT, fee \d+\.\d\d USDT\.$/,
    );
    expect(closedAll.fills).toHaveLength(2);
    expect((await t.app.inject({ url: '/api/positions', headers: auth })).json()).toEqual([]);
    const again = await t.app.inject({ method: 'POST', url: '/api/close_all_positions', headers: auth });
    expect(again.json()).toEqual({ message: 'There are no open positions to close.', fills: [] });
  });

  it('says what each fill did to the position: opened, added, reduced, flipped, closed', async () => {
    const place = async (side: 'long' | 'short', amount: number) => {
      const res = await order({ symbol: 'SOL/USDT', side, type: 'market', amount });
      expect(res.statusCode).toBe(200);
      return OrderResponse.parse(res.json());
    };
    const opened = await place('short', 300);
    expect(opened.position).toEqual({
      effect: 'open',
      before: null,
      after: { side: 'short', size: opened.quantity },
    });
    const added = await place('short', 100);
    const held = opened.quantity + added.quantity;
    expect(added.position?.effect).toBe('add');
    expect(added.position?.after?.size).toBeCloseTo(held, 8);
    const reduced = await place('long', 100);
    expect(reduced.position).toMatchObject({
      effect: 'reduce',
      before: { side: 'short' },
      after: { side: 'short' },
    });
    expect(reduced.position?.before?.size).toBeCloseTo(held, 8);
    expect(reduced.position?.after?.size).toBeCloseTo(held - reduced.quantity, 8);
    expect(reduced.realizedPnl).not.toBe(0);
    const flipped = await place('long', 600);
    expect(flipped.position).toMatchObject({
      effect: 'flip',
      before: { side: 'short' },
      after: { side: 'long' },
    });
    const closed = await t.app.inject({
      method: 'POST',
      url: '/api/close_position',
      headers: auth,
      payload: { symbol: 'SOL/USDT' },
    });
    const fill = CloseResponse.parse(closed.json()).fill;
    expect(fill.position).toEqual({
      effect: 'close',
      before: { side: 'long', size: fill.quantity },
      after: null,
    });
  });

  it('sets leverage within the bracket limit, and resets the paper account', async () => {
    const ok = await t.app.inject({
      method: 'POST',
      url: '/api/account/leverage',
      headers: auth,
      payload: { symbol: 'BTC/USDT', leverage: 100 },
    });
    expect(ok.json()).toEqual({ message: 'Leverage for BTC/USDT set to 100x.' });
    const tooHigh = await t.app.inject({
      method: 'POST',
      url: '/api/account/leverage',
      headers: auth,
      payload: { symbol: 'DOGE/USDT', leverage: 100 },
    });
    expect(tooHigh.json()).toEqual({ detail: 'Leverage is not valid' });
    const reset = await t.app.inject({ method: 'POST', url: '/api/account/paper/reset', headers: auth });
    expect(reset.statusCode).toBe(200);
    const balance = (await t.app.inject({ url: '/api/account/balance', headers: auth })).json();
    expect(balance).toMatchObject({ walletBalance: 10_000, availableBalance: 10_000, exchange: 'paper' });
  });
});
