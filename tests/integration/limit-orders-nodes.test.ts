import type { FastifyInstance } from 'fastify';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../server/app';
import { paperLedger, users } from '../../server/db/schema';
import { Balance, OpenOrder, OrderResponse } from '../../src/contracts/trading';
import { startBinanceDouble, type BinanceDouble } from '../fixtures/binance-double';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';

const pglite = useDatabase(dbTargets()[0]);

/**
 * Two servers on one database, as two processes, priced by one Binance double: limit orders sent to both
 * at once are placed once per key and never hold more margin than the account has; the market trading
 * through them fills each once; a server started afterwards finds the orders still resting.
 */
describe('limit orders on two nodes of one database', () => {
  let double: BinanceDouble;
  let t: TestApp;
  let other: FastifyInstance;
  let auth: { authorization: string };
  let userId = '';

  beforeAll(async () => {
    double = await startBinanceDouble({ BTCUSDT: 60_000, ETHUSDT: 3_000 });
    t = await startTestApp(pglite, {
      MARKET_SOURCE: 'binance',
      BINANCE_FAPI_URL: double.restUrl,
      BINANCE_FSTREAM_URL: double.streamUrl,
    });
    other = await buildApp(t.config, { logger: false, database: t.database });
    await other.ready();
    await vi.waitFor(() => expect(double.connections()).toBe(2));
    auth = await signUpAndLogIn(t.app, 'limitnodes');
    const [me] = await t.database.db
      .select({ id: users.id })
      .from(users)
      .where(eq(users.username, 'limitnodes'));
    userId = me!.id;
    await price(60_000);
  });
  afterAll(async () => {
    await other?.close();
    await t?.close();
    await double?.close();
  });

  async function price(value: number) {
    double.prices.set('ETHUSDT', value);
    double.marks.set('ETHUSDT', value);
    double.tick();
    double.markPrice();
    await new Promise((r) => setTimeout(r, 100));
  }
  const node = (i: number) => (i % 2 === 0 ? t.app : other);
  const order = (i: number, payload: object, headers: Record<string, string> = {}) =>
    node(i).inject({ method: 'POST', url: '/api/orders', headers: { ...auth, ...headers }, payload });
  const open = async (app: FastifyInstance) =>
    ((await app.inject({ url: '/api/orders/open', headers: auth })).json() as unknown[]).map((o) =>
      OpenOrder.parse(o),
    );
  const fills = async () =>
    (
      await t.database.db
        .select()
        .from(paperLedger)
        .where(and(eq(paperLedger.userId, userId), eq(paperLedger.type, 'fill')))
    ).length;

  it('places one order for thirty requests under one key, half to each server', async () => {
    const payload = { symbol: 'ETH/USDT', side: 'long', type: 'limit', price: 2_800, amount: 560 };
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => order(i, payload, { 'idempotency-key': 'two-nodes-key-1' })),
    );
    for (const a of answers) expect(a.statusCode, a.body).toBe(200);
    expect(new Set(answers.map((a) => OrderResponse.parse(a.json()).id)).size).toBe(1);
    expect(await open(other)).toHaveLength(1);
  });

  it('holds no more margin than the account has when thirty orders race over both servers', async () => {
    const free = Balance.parse(
      (await t.app.inject({ url: '/api/account/balance', headers: auth })).json(),
    ).availableBalance;
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        order(i, { symbol: 'ETH/USDT', side: 'long', type: 'limit', price: 2_500, amount: 5_000 }),
      ),
    );
    const placed = answers.filter((a) => a.statusCode === 200).length;
    // Each holds 500 of margin and 1 of maker fee.
    expect(placed).toBe(Math.floor(free / 501));
    const after = Balance.parse((await other.inject({ url: '/api/account/balance', headers: auth })).json());
    expect(after.availableBalance).toBeGreaterThanOrEqual(0);
    expect(await open(t.app)).toHaveLength(placed + 1);
  });

  it('a server started afterwards finds them resting, and the market fills each of them once', async () => {
    const third = await buildApp(t.config, { logger: false, database: t.database });
    await third.ready();
    try {
      const resting = await open(third);
      expect(resting.length).toBeGreaterThan(1);
      await price(2_400);
      await vi.waitFor(async () => expect(await open(t.app)).toEqual([]), { timeout: 5_000 });
      await new Promise((r) => setTimeout(r, 300));
      expect(await fills()).toBe(resting.length);
      expect(await open(other)).toEqual([]);
    } finally {
      await third.close();
    }
  });
});
