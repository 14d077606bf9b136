import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../server/db/client';
import { paperLedger, users } from '../../server/db/schema';
import type { ExchangeEvent, PositionRisk } from '../../server/modules/trading/exchange';
import { ExchangeError } from '../../server/modules/trading/exchange-error';
import { LedgerRepo } from '../../server/modules/trading/paper/ledger.repo';
import { PaperExchange } from '../../server/modules/trading/paper/paper-exchange';
import { dbTargets, useDatabase } from '../helpers/db';

describe.each(dbTargets())('paper exchange on %s', (name) => {
  const target = useDatabase(name);
  let database: Database;
  const marks = new Map<string, number>([
    ['BTCUSDT', 60_000],
    ['ETHUSDT', 3_000],
    ['SOLUSDT', 150],
  ]);
  const exchange = (opts: Partial<ConstructorParameters<typeof PaperExchange>[0]> = {}) =>
    new PaperExchange({
      repo: new LedgerRepo(database.db),
      marks: { price: (s) => marks.get(s) },
      slippageBps: 0,
      ...opts,
    });

  async function newUser(name: string): Promise<string> {
    const [row] = await database.db
      .insert(users)
      .values({ email: `${name}@example.com`, username: name })
      .returning({ id: users.id });
    return row!.id;
  }

  beforeAll(async () => {
    database = await target.open();
  });
  afterAll(async () => {
    await database.close();
    await target.cleanup();
  });

  it('opens every account with 10 000 USDT, recorded in the ledger', async () => {
    const user = await newUser('fresh');
    const balance = await exchange().balance(user);
    expect(Number(balance.balance)).toBe(10_000);
    expect(Number(balance.availableBalance)).toBe(10_000);
    const rows = await database.db.select().from(paperLedger);
    expect(rows.filter((r) => r.userId === user).map((r) => [r.seq, r.type, Number(r.cashAfter)])).toEqual([
      [1, 'deposit', 10_000],
    ]);
  });

  it('rehearses the order path in memory: nothing written, emitted or left in an account', async () => {
    const user = await newUser('rehearsed');
    const ex = exchange();
    const events: unknown[] = [];
    ex.subscribeAll((account, event) => events.push([account, event]));
    const before = await database.db.select().from(paperLedger);
    expect(ex.rehearse(['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'DOGEUSDT'], 3)).toBeGreaterThan(0);
    expect(events).toEqual([]);
    expect(await database.db.select().from(paperLedger)).toEqual(before);
    expect(await ex.positionRisk(user)).toEqual([]);
    expect(Number((await ex.balance(user)).balance)).toBe(10_000);
  });

  it('fills a market order, reports the position in positionRisk shape and emits Binance events', async () => {
    const user = await newUser('trader');
    const ex = exchange();
    const events: ExchangeEvent[] = [];
    ex.subscribe(user, (e) => events.push(e));
    const result = await ex.placeMarketOrder(user, {
      symbol: 'BTCUSDT',
      side: 'BUY',
      quoteAmount: '5000',
      newClientOrderId: 'sc-1',
    });
    expect(result).toMatchObject({
      status: 'FILLED',
      executedQty: '0.083',
      avgPrice: '60000',
      commission: '2.49',
    });
    marks.set('BTCUSDT', 61_000);
    const [risk] = await ex.positionRisk(user);
    expect(risk).toMatchObject({
      symbol: 'BTCUSDT',
      positionAmt: '0.083',
      entryPrice: '60000',
      markPrice: '61000',
    });
    expect(Number(risk!.unRealizedProfit)).toBeCloseTo(83, 6);
    expect(Number(risk!.liquidationPrice)).toBeGreaterThan(50_000);
    expect(events.map((e) => e.e)).toEqual(['ORDER_TRADE_UPDATE', 'ACCOUNT_UPDATE']);
    // The account update is of the moment of the fill (mark 60,000), however late it is read.
    const update = JSON.parse(JSON.stringify(events[1])) as { a: { P: Record<string, string>[] } };
    expect(update.a.P).toEqual([
      expect.objectContaining({ s: 'BTCUSDT', pa: '0.083', ep: '60000', up: '0.00000000' }),
    ]);
    marks.set('BTCUSDT', 60_000);
  });

  it('fills around the last trade but marks the position to the mark price', async () => {
    const user = await newUser('marked');
    const lasts = new Map([['BTCUSDT', 60_100]]);
    const ex = exchange({ marks: { price: (s) => marks.get(s), fillPrice: (s) => lasts.get(s) } });
    const result = await ex.placeMarketOrder(user, {
      symbol: 'BTCUSDT',
      side: 'BUY',
      quoteAmount: '6010',
      newClientOrderId: 'm-1',
    });
    expect(result).toMatchObject({ executedQty: '0.1', avgPrice: '60100' });
    const [risk] = await ex.positionRisk(user);
    expect(risk).toMatchObject({ entryPrice: '60100', markPrice: '60000' });
    expect(Number(risk!.unRealizedProfit)).toBeCloseTo(-10, 6);
    expect(Number((await ex.balance(user)).crossUnPnl)).toBeCloseTo(-10, 6);
  });

  it('never fills the same client order id twice, and finds the first fill', async () => {
    const user = await newUser('retry');
    const ex = exchange();
    const first = await ex.placeMarketOrder(user, {
      symbol: 'ETHUSDT',
      side: 'SELL',
      quoteAmount: '300',
      newClientOrderId: 'sc-dup',
    });
    await expect(
      ex.placeMarketOrder(user, {
        symbol: 'ETHUSDT',
        side: 'SELL',
        quoteAmount: '300',
        newClientOrderId: 'sc-dup',
      }),
    ).rejects.toMatchObject({ code: -4116 });
    // The stored fill is the answer, less how its amount was sized (only the placing call knows that).
    expect(first.sizing?.requested).toBe('300');
    expect(await ex.queryOrder(user, 'sc-dup')).toEqual({ ...first, sizing: undefined });
    // A second process (a new exchange over the same database) refuses it too.
    await expect(
      exchange().placeMarketOrder(user, {
        symbol: 'ETHUSDT',
        side: 'SELL',
        quoteAmount: '300',
        newClientOrderId: 'sc-dup',
      }),
    ).rejects.toBeInstanceOf(ExchangeError);
    expect((await ex.positionRisk(user))[0]?.positionAmt).toBe('-0.1');
  });

  it('runs concurrent orders of one account one at a time', async () => {
    const user = await newUser('burst');
    const ex = exchange();
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        ex.placeMarketOrder(user, {
          symbol: 'SOLUSDT',
          side: 'BUY',
          quoteAmount: '150',
          newClientOrderId: `sc-b${i}`,
        }),
      ),
    );
    const [risk] = await ex.positionRisk(user);
    expect(risk?.positionAmt).toBe('12');
    const seqs = (await database.db.select().from(paperLedger))
      .filter((r) => r.userId === user)
      .map((r) => r.seq)
      .sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));
  });

  it('rebuilds the same account from the ledger after a restart', async () => {
    const user = await newUser('restart');
    const before = exchange();
    await before.placeMarketOrder(user, {
      symbol: 'ETHUSDT',
      side: 'BUY',
      quoteAmount: '600',
      newClientOrderId: 'a',
    });
    await before.placeMarketOrder(user, {
      symbol: 'SOLUSDT',
      side: 'SELL',
      quoteAmount: '300',
      newClientOrderId: 'b',
    });
    await before.closePosition(user, 'ETHUSDT', 'c');
    const after = exchange();
    const withoutTime = (rows: PositionRisk[]) => rows.map(({ updateTime: _t, ...rest }) => rest);
    expect(withoutTime(await after.positionRisk(user))).toEqual(withoutTime(await before.positionRisk(user)));
    expect(await after.balance(user)).toMatchObject({
      balance: (await before.balance(user)).balance,
      availableBalance: (await before.balance(user)).availableBalance,
    });
  });

  it('liquidates a position when the mark crosses its liquidation price, and tells', async () => {
    const user = await newUser('rekt');
    const liquidated: string[] = [];
    const ex = exchange({ onLiquidation: (account, symbol) => liquidated.push(`${account}:${symbol}`) });
    await ex.setLeverage(user, 'SOLUSDT', 20);
    await ex.placeMarketOrder(user, {
      symbol: 'SOLUSDT',
      side: 'BUY',
      quoteAmount: '1500',
      newClientOrderId: 'l1',
    });
    const lp = Number((await ex.positionRisk(user))[0]?.liquidationPrice);
    expect(lp).toBeGreaterThan(140);
    marks.set('SOLUSDT', lp + 0.5);
    await ex.checkLiquidations(new Set(['SOLUSDT']));
    expect(await ex.positionRisk(user)).toHaveLength(1);
    marks.set('SOLUSDT', lp - 0.01);
    await ex.checkLiquidations(new Set(['SOLUSDT']));
    expect(await ex.positionRisk(user)).toEqual([]);
    expect(liquidated).toEqual([`${user}:SOLUSDT`]);
    expect(Number((await ex.balance(user)).balance)).toBeCloseTo(10_000 - 75 - 0.75, 2);
    marks.set('SOLUSDT', 150);
  });

  it('closes all positions, refuses lowering leverage under an open position, and resets', async () => {
    const user = await newUser('closer');
    const ex = exchange();
    await ex.placeMarketOrder(user, {
      symbol: 'ETHUSDT',
      side: 'BUY',
      quoteAmount: '300',
      newClientOrderId: 'x1',
    });
    await ex.placeMarketOrder(user, {
      symbol: 'SOLUSDT',
      side: 'BUY',
      quoteAmount: '300',
      newClientOrderId: 'x2',
    });
    await expect(ex.setLeverage(user, 'ETHUSDT', 5)).rejects.toMatchObject({ code: -4161 });
    const closed = await ex.closeAllPositions(user, 'all1');
    expect(closed.map((r) => [r.symbol, r.reduceOnly])).toEqual([
      ['ETHUSDT', true],
      ['SOLUSDT', true],
    ]);
    expect(await ex.positionRisk(user)).toEqual([]);
    expect(Number((await ex.balance(user)).balance)).toBeLessThan(10_000);
    await ex.reset(user);
    expect(Number((await ex.balance(user)).balance)).toBe(10_000);
  });
});
