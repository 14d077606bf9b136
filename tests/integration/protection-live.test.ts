import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { positionProtections } from '../../server/db/schema';
import type { BusEventMap } from '../../src/contracts/events';
import { ExchangeKey } from '../../src/contracts/exchanges';
import { OrderResponse, Position } from '../../src/contracts/trading';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';
import { BINANCE_ERRORS, startSignedDouble, type SignedDouble } from '../fixtures/binance-signed-double';

const KEY = { apiKey: 'GuardKey0123456789abcdefghij', secret: 'guard-secret-0123456789abcd' };
const pglite = useDatabase(dbTargets()[0]);

/**
 * Protection on a live Binance account, against the signed double: the legs rest on Binance's algo
 * service, a leg cancelled there comes back, a refused leg closes the position, a stop firing on the
 * mark ends the others, and a time exit whose closes fail keeps trying until Binance fills one.
 */
describe('position protection on a live Binance account (local double)', () => {
  let t: TestApp;
  let binance: SignedDouble;
  let auth: { authorization: string };
  const told: BusEventMap['trading.protection'][] = [];

  beforeAll(async () => {
    binance = await startSignedDouble();
    binance.keys.set(KEY.apiKey, { ...KEY, ipRestrict: true });
    t = await startTestApp(pglite, {
      MARKET_SOURCE: 'sim',
      BINANCE_FAPI_URL: binance.url,
      BINANCE_API_URL: binance.url,
      BINANCE_DEMO_FAPI_URL: 'http://127.0.0.1:9',
      BINANCE_TIMEOUT_MS: '500',
      BINANCE_ORDER_SETTLE_MS: '300',
      PROTECTION_RECONCILE_S: '1',
    });
    t.app.bus.subscribe('trading.protection', (event) => {
      told.push(event);
    });
    auth = await signUpAndLogIn(t.app, 'guarded');
    const saved = await t.app.inject({
      method: 'POST',
      url: '/api/exchanges/',
      headers: auth,
      payload: { exchangeName: 'binance', apiKey: KEY.apiKey, secretKey: KEY.secret },
    });
    const keyId = ExchangeKey.parse(saved.json()).id;
    const chosen = await t.app.inject({
      method: 'PUT',
      url: '/api/account',
      headers: auth,
      payload: { account: keyId },
    });
    expect(chosen.statusCode).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    await binance?.close();
  });

  const order = (payload: object) =>
    t.app.inject({
      method: 'POST',
      url: '/api/orders',
      headers: { ...auth, 'idempotency-key': randomUUID() },
      payload,
    });
  const positions = async () =>
    ((await t.app.inject({ url: '/api/positions', headers: auth })).json() as unknown[]).map((p) =>
      Position.parse(p),
    );
  const resting = () => binance.algoOrders.filter((o) => o.status === 'NEW');

  it('rests the stop and the target on Binance as soon as the fill is known', async () => {
    const res = await order({
      symbol: 'BTC/USDT',
      side: 'long',
      amount: 1_000,
      protection: { stop_loss_pct: 2, take_profit_pct: 4 },
    });
    expect(res.statusCode).toBe(200);
    const body = OrderResponse.parse(res.json());
    expect(body.protection).toMatchObject({
      stop_loss: { on: 'exchange', state: 'resting' },
      take_profit: { on: 'exchange', state: 'resting' },
      note: null,
    });
    expect(body.protection?.unprotected_ms).toBeGreaterThanOrEqual(0);
    const legs = resting();
    expect(legs).toHaveLength(2);
    const stop = legs.find((o) => o.type === 'STOP_MARKET');
    expect(stop).toMatchObject({
      side: 'SELL',
      closePosition: true,
      workingType: 'MARK_PRICE',
      priceProtect: true,
    });
    expect(Number(stop?.triggerPrice)).toBeCloseTo(body.price * 0.98, -1);
    expect(legs.find((o) => o.type === 'TAKE_PROFIT_MARKET')?.side).toBe('SELL');
    const [row] = await positions();
    expect(row?.protection.stop_loss).toMatchObject({ on: 'exchange', state: 'resting' });
  });

  it('places a leg cancelled on Binance again within the reconcile interval, and tells the user', async () => {
    const stop = resting().find((o) => o.type === 'STOP_MARKET');
    binance.cancelAlgoByHand(KEY.apiKey, stop!.clientAlgoId);
    await vi.waitFor(
      () => {
        const again = resting().find((o) => o.type === 'STOP_MARKET');
        expect(again).toBeDefined();
        expect(again?.clientAlgoId).not.toBe(stop!.clientAlgoId);
        expect(again?.triggerPrice).toBe(stop!.triggerPrice);
        // The user is told once the venue confirmed the new leg, a moment after it rests there.
        expect(told.find((e) => e.event === 'placed_again')).toMatchObject({
          symbol: 'BTC/USDT',
          leg: 'stop_loss',
        });
      },
      { timeout: 4_000 },
    );
  });

  it('fires the stop on the mark: the position closes, the target ends, the row goes', async () => {
    const stop = resting().find((o) => o.type === 'STOP_MARKET');
    binance.setMark('BTCUSDT', Number(stop!.triggerPrice) - 10);
    await vi.waitFor(async () => expect(await positions()).toEqual([]), { timeout: 4_000 });
    await vi.waitFor(async () => expect(await t.database.db.select().from(positionProtections)).toEqual([]), {
      timeout: 4_000,
    });
    expect(resting()).toEqual([]);
    // Nothing was placed again on the closed position, in this round or the next.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(binance.algoOrders.filter((o) => o.status === 'NEW')).toEqual([]);
    expect(told.filter((e) => e.event === 'placed_again')).toHaveLength(1);
    await vi.waitFor(() => expect(told.find((e) => e.event === 'fired')?.leg).toBe('stop_loss'), {
      timeout: 4_000,
    });
    binance.setMark('BTCUSDT', 60_000);
  });

  it('closes the position at market when Binance refuses a leg, and says why', async () => {
    binance.refuseAlgoPlacements(BINANCE_ERRORS.margin, 1);
    const res = await order({
      symbol: 'BTC/USDT',
      side: 'long',
      amount: 1_000,
      protection: { stop_loss_pct: 2, take_profit_pct: 4 },
    });
    expect(res.statusCode).toBe(200);
    const body = OrderResponse.parse(res.json());
    // The legs go out together: whichever Binance saw first is the one refused.
    expect(body.protection?.note).toMatch(
      /^The exchange refused the (stop loss|take profit) \(Margin is insufficient\.\): the position is being closed at market\.$/,
    );
    await vi.waitFor(async () => expect(await positions()).toEqual([]), { timeout: 4_000 });
    // The leg that did rest was cancelled: nothing is left to open a new position.
    await vi.waitFor(() => expect(resting()).toEqual([]), { timeout: 4_000 });
    expect(['stop_loss', 'take_profit']).toContain(told.find((e) => e.event === 'refused')?.leg);
  });

  it('retries a time exit whose closes fail until Binance fills one, with one reduce filled', async () => {
    const res = await order({ symbol: 'BTC/USDT', side: 'long', amount: 1_000 });
    expect(res.statusCode).toBe(200);
    const set = await t.app.inject({
      method: 'PUT',
      url: '/api/positions/BTCUSDT/protection',
      headers: auth,
      payload: { exit_after_min: 30 },
    });
    expect(set.statusCode).toBe(200);
    const ordersBefore = binance.orders.length;
    binance.failReduceOrders({ kind: 'server-error', status: 502 }, 2);
    await t.database.db
      .update(positionProtections)
      .set({ exitAt: new Date(Date.now() - 1_000) })
      .where(eq(positionProtections.symbol, 'BTCUSDT'));
    await vi.waitFor(async () => expect(await positions()).toEqual([]), { timeout: 12_000, interval: 200 });
    const filled = binance.orders.slice(ordersBefore).filter((o) => o.reduceOnly && o.status === 'FILLED');
    expect(filled).toHaveLength(1);
    await vi.waitFor(() => expect(told.find((e) => e.event === 'exited')?.symbol).toBe('BTC/USDT'), {
      timeout: 4_000,
    });
  });
});
