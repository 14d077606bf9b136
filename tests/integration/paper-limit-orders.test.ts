import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../server/db/client';
import { paperLedger, users } from '../../server/db/schema';
import type { ExchangeEvent, LimitOrderRequest } from '../../server/modules/trading/exchange';
import type { LedgerEvent } from '../../server/modules/trading/paper/account';
import { LedgerRepo } from '../../server/modules/trading/paper/ledger.repo';
import { PaperExchange } from '../../server/modules/trading/paper/paper-exchange';
import { dbTargets, useDatabase } from '../helpers/db';

type Fill = Extract<LedgerEvent, { type: 'fill' }>;

/**
 * Limit orders on the paper exchange: each test scripts the last price and calls the check the server
 * runs on each move of the prices.
 */
describe.each(dbTargets())('paper limit orders on %s', (name) => {
  const db = useDatabase(name);
  let database: Database;

  const exchange = (
    marks: Map<string, number>,
    opts: Partial<ConstructorParameters<typeof PaperExchange>[0]> = {},
  ) =>
    new PaperExchange({
      repo: new LedgerRepo(database.db),
      marks: { price: (s) => marks.get(s) },
      slippageBps: 0,
      sleep: async () => {},
      ...opts,
    });

  async function newUser(name: string): Promise<string> {
    const [row] = await database.db
      .insert(users)
      .values({ email: `${name}@example.com`, username: name })
      .returning({ id: users.id });
    return row!.id;
  }

  const fills = async (user: string) =>
    (
      await database.db
        .select()
        .from(paperLedger)
        .where(eq(paperLedger.userId, user))
        .orderBy(asc(paperLedger.seq))
    )
      .map((r) => r.event)
      .filter((e): e is Fill => e.type === 'fill');

  const buy = (over: Partial<LimitOrderRequest> = {}): LimitOrderRequest => ({
    symbol: 'BTCUSDT',
    side: 'BUY',
    price: '59000',
    quantity: '0.05',
    timeInForce: 'GTC',
    newClientOrderId: 'lim-1',
    ...over,
  });

  const tick = async (ex: PaperExchange, marks: Map<string, number>, price: number) => {
    marks.set('BTCUSDT', price);
    await ex.checkLimits(new Set(['BTCUSDT']));
  };

  beforeAll(async () => {
    database = await db.open();
  });
  afterAll(async () => {
    await database.close();
    await db.cleanup();
  });

  it('rests a GTC that does not cross, holding its margin and maker fee out of the available balance', async () => {
    const user = await newUser('rest');
    const marks = new Map([['BTCUSDT', 60_000]]);
    const ex = exchange(marks);
    const events: ExchangeEvent[] = [];
    ex.subscribe(user, (e) => events.push(e));
    const placed = await ex.placeLimitOrder(user, buy());
    expect(placed).toMatchObject({ type: 'LIMIT', status: 'NEW', origQty: '0.05', executedQty: '0' });
    // 0.05 × 59 000 = 2 950 of notional: 295 of margin at 10x, and 0.59 of maker fee (0.02 %).
    expect(await ex.balance(user)).toMatchObject({
      balance: '10000.00000000',
      availableBalance: '9704.41000000',
    });
    expect(await ex.openOrders(user)).toEqual([
      expect.objectContaining({ clientOrderId: 'lim-1', price: '59000', origQty: '0.05', status: 'NEW' }),
    ]);
    expect(events.map((e) => (e.e === 'ORDER_TRADE_UPDATE' ? `${e.e} ${e.o.X}` : e.e))).toEqual([
      'ORDER_TRADE_UPDATE NEW',
      'ACCOUNT_UPDATE',
    ]);
    expect(await fills(user)).toEqual([]);
  });

  it('fills at its own price as a maker once the market trades at or through it', async () => {
    const user = await newUser('maker');
    const marks = new Map([['BTCUSDT', 60_000]]);
    const ex = exchange(marks);
    await ex.placeLimitOrder(user, buy());
    await tick(ex, marks, 59_000.1);
    expect(await fills(user)).toEqual([]);
    const events: ExchangeEvent[] = [];
    ex.subscribe(user, (e) => events.push(e));
    await tick(ex, marks, 58_900);
    const [fill] = await fills(user);
    expect(fill).toMatchObject({ qty: '0.05', price: '59000', fee: '0.59', clientOrderId: 'lim-1' });
    expect(fill?.limit).toEqual({ price: '59000', timeInForce: 'GTC', rested: true });
    expect(events.map((e) => e.e)).toEqual(['ORDER_TRADE_UPDATE', 'ACCOUNT_UPDATE']);
    expect(await ex.openOrders(user)).toEqual([]);
    // The reserve came back; the position's margin and the fee went.
    expect(await ex.balance(user)).toMatchObject({ availableBalance: '9704.41000000' });
    expect(await ex.positionRisk(user)).toEqual([
      expect.objectContaining({ positionAmt: '0.05', entryPrice: '59000' }),
    ]);
    expect(await ex.queryOrder(user, 'lim-1')).toMatchObject({ status: 'FILLED', type: 'LIMIT' });
    await tick(ex, marks, 58_000);
    expect(await fills(user)).toHaveLength(1);
  });

  it('a limit that crosses at once fills as a taker at the better of its price and the market', async () => {
    const user = await newUser('taker');
    const marks = new Map([['BTCUSDT', 60_000]]);
    const ex = exchange(marks);
    const result = await ex.placeLimitOrder(user, buy({ price: '61000' }));
    expect(result).toMatchObject({ type: 'LIMIT', status: 'FILLED', avgPrice: '60000', executedQty: '0.05' });
    // 0.05 × 60 000 × 0.05 %.
    expect(result.commission).toBe('1.5');
    const sell = await ex.placeLimitOrder(
      user,
      buy({ side: 'SELL', price: '59990', newClientOrderId: 'lim-2' }),
    );
    expect(sell).toMatchObject({ status: 'FILLED', avgPrice: '60000' });
    expect(await ex.openOrders(user)).toEqual([]);
  });

  it('IOC fills what crosses now and expires otherwise; post-only is refused when it would take', async () => {
    const user = await newUser('ioc-post');
    const marks = new Map([['BTCUSDT', 60_000]]);
    const ex = exchange(marks);
    const expired = await ex.placeLimitOrder(user, buy({ timeInForce: 'IOC' }));
    expect(expired).toMatchObject({ status: 'EXPIRED', executedQty: '0' });
    expect(expired.orderId).toMatch(/^[0-9a-f-]{36}$/);
    const filled = await ex.placeLimitOrder(
      user,
      buy({ timeInForce: 'IOC', price: '60500', newClientOrderId: 'ioc-2' }),
    );
    expect(filled).toMatchObject({ status: 'FILLED', executedQty: '0.05' });
    await expect(
      ex.placeLimitOrder(user, buy({ timeInForce: 'GTX', price: '60000', newClientOrderId: 'post-1' })),
    ).rejects.toMatchObject({ code: -5022, msg: expect.stringContaining('would take liquidity') });
    const posted = await ex.placeLimitOrder(
      user,
      buy({ timeInForce: 'GTX', price: '59000', newClientOrderId: 'post-2' }),
    );
    expect(posted).toMatchObject({ status: 'NEW' });
    expect(await ex.openOrders(user)).toEqual([expect.objectContaining({ timeInForce: 'GTX' })]);
  });

  it('cancels by id, gives the reserve back, and answers null once it is gone', async () => {
    const user = await newUser('cancel');
    const marks = new Map([['BTCUSDT', 60_000]]);
    const ex = exchange(marks);
    const placed = await ex.placeLimitOrder(user, buy());
    const cancelled = await ex.cancelOrder(user, 'BTCUSDT', { orderId: placed.orderId });
    expect(cancelled).toMatchObject({ status: 'CANCELED', orderId: placed.orderId });
    expect(await ex.balance(user)).toMatchObject({ availableBalance: '10000.00000000' });
    expect(await ex.cancelOrder(user, 'BTCUSDT', { orderId: placed.orderId })).toBeNull();
    await tick(ex, marks, 50_000);
    expect(await fills(user)).toEqual([]);
    // A client id used once is never placed again.
    await expect(ex.placeLimitOrder(user, buy())).rejects.toMatchObject({ code: -4116 });
  });

  it('refuses a resting order the free cash cannot hold', async () => {
    const user = await newUser('poor');
    const marks = new Map([['BTCUSDT', 60_000]]);
    const ex = exchange(marks);
    await expect(ex.placeLimitOrder(user, buy({ quantity: '2' }))).rejects.toMatchObject({ code: -2019 });
    await ex.placeLimitOrder(user, buy({ quantity: '1.6' }));
    await expect(
      ex.placeLimitOrder(user, buy({ quantity: '0.1', newClientOrderId: 'lim-2' })),
    ).rejects.toMatchObject({ code: -2019 });
  });

  it('survives a restart, through the ledger and through a snapshot', async () => {
    for (const snapshotEvery of [null, 2]) {
      const user = await newUser(`restart-${snapshotEvery}`);
      const marks = new Map([['BTCUSDT', 60_000]]);
      const first = exchange(marks, { snapshotEvery });
      await first.placeLimitOrder(user, buy());
      await first.placeLimitOrder(user, buy({ newClientOrderId: 'lim-2', price: '58000' }));
      const second = exchange(marks, { snapshotEvery });
      expect(await second.warmUp()).toBeGreaterThan(0);
      expect(await second.openOrders(user)).toHaveLength(2);
      expect((await second.balance(user)).availableBalance).toBe(
        (await first.balance(user)).availableBalance,
      );
      await tick(second, marks, 58_500);
      expect((await fills(user)).map((f) => f.clientOrderId)).toEqual(['lim-1']);
    }
  });

  it('thirty price ticks at once fill a resting order once', async () => {
    const user = await newUser('ticks');
    const marks = new Map([['BTCUSDT', 60_000]]);
    const ex = exchange(marks);
    await ex.placeLimitOrder(user, buy());
    marks.set('BTCUSDT', 58_000);
    await Promise.all(Array.from({ length: 30 }, () => ex.checkLimits(new Set(['BTCUSDT']))));
    expect(await fills(user)).toHaveLength(1);
    expect(await ex.positionRisk(user)).toEqual([expect.objectContaining({ positionAmt: '0.05' })]);
  });

  it('two processes watching one account fill it once, thirty ticks each', async () => {
    const user = await newUser('two-processes');
    const marks = new Map([['BTCUSDT', 60_000]]);
    const [a, b] = [exchange(marks), exchange(marks)];
    await a.placeLimitOrder(user, buy());
    await a.placeLimitOrder(user, buy({ newClientOrderId: 'lim-2', price: '58500' }));
    expect(await b.openOrders(user)).toHaveLength(2);
    marks.set('BTCUSDT', 58_000);
    await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? a : b).checkLimits(new Set(['BTCUSDT']))),
    );
    expect((await fills(user)).map((f) => f.clientOrderId).sort()).toEqual(['lim-1', 'lim-2']);
    for (const ex of [a, b]) {
      ex.invalidate(user);
      expect(await ex.openOrders(user)).toEqual([]);
      expect(await ex.positionRisk(user)).toEqual([expect.objectContaining({ positionAmt: '0.1' })]);
    }
  });

  it('thirty placements of one client id at once rest one order, through two processes', async () => {
    const user = await newUser('burst');
    const marks = new Map([['BTCUSDT', 60_000]]);
    const exchanges = [exchange(marks), exchange(marks)];
    await Promise.all(exchanges.map((ex) => ex.balance(user)));
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) => exchanges[i % 2]!.placeLimitOrder(user, buy())),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: -4116 });
    expect(await exchanges[1]!.openOrders(user)).toHaveLength(1);
  });

  it('a reset cancels the resting orders and gives their cash back', async () => {
    const user = await newUser('reset');
    const marks = new Map([['BTCUSDT', 60_000]]);
    const ex = exchange(marks);
    await ex.placeLimitOrder(user, buy());
    expect(await ex.reset(user)).toMatchObject({
      balance: '10000.00000000',
      availableBalance: '10000.00000000',
    });
    expect(await ex.openOrders(user)).toEqual([]);
  });
});
