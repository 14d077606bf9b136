import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloseResponse, OrderResponse, TradesPage } from '../../src/contracts/trading';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';
import { completedSignal, freshSignalId, until } from './rules.support';

describe.each(dbTargets())('trade history on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let ann: { authorization: string };
  let bob: { authorization: string };

  beforeAll(async () => {
    // A rule here decides a signal of its own: a replayed DOGE headline would fire it again.
    t = await startTestApp(target, { NEWS_SOURCES: 'webhook' });
    ann = await signUpAndLogIn(t.app, 'ann');
    bob = await signUpAndLogIn(t.app, 'bob');
  });
  afterAll(() => t.close());

  const order = async (auth: { authorization: string }, body: object, key?: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/orders',
      headers: { ...auth, ...(key === undefined ? {} : { 'idempotency-key': key }) },
      payload: { type: 'market', ...body },
    });
    expect(res.statusCode, res.body).toBe(200);
    return OrderResponse.parse(res.json());
  };
  const history = async (auth: { authorization: string }, query = '') => {
    const res = await t.app.inject({ url: `/api/trades${query}`, headers: auth });
    expect(res.statusCode, res.body).toBe(200);
    return TradesPage.parse(res.json());
  };

  it('needs a sign-in', async () => {
    const res = await t.app.inject({ url: '/api/trades' });
    expect(res.statusCode).toBe(401);
  });

  it('lists every fill newest first, with what placed it, and a retry adds nothing', async () => {
    const opened = await order(ann, { symbol: 'ETH/USDT', side: 'long', amount: 500 }, 'history-key-1');
    await order(ann, { symbol: 'ETH/USDT', side: 'long', amount: 500 }, 'history-key-1');
    const fromCard = await order(ann, { symbol: 'BTC/USDT', side: 'short', amount: 300, source: 'card' });
    const closed = CloseResponse.parse(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/close_position',
          headers: ann,
          payload: { symbol: 'ETH/USDT' },
        })
      ).json(),
    );

    const page = await history(ann);
    expect(page.nextCursor).toBeNull();
    expect(page.trades.map((tr) => [tr.symbol, tr.side, tr.source])).toEqual([
      ['ETH/USDT', 'sell', 'manual'],
      ['BTC/USDT', 'sell', 'card'],
      ['ETH/USDT', 'buy', 'manual'],
    ]);
    const [close, card, open] = page.trades;
    expect(open).toMatchObject({
      orderId: opened.id,
      quantity: opened.quantity,
      price: opened.price,
      fee: opened.fee,
      realizedPnl: 0,
      accountId: 'paper',
      account: { venue: 'paper', mode: 'paper', keyHint: null },
      ruleId: null,
    });
    expect(card!.orderId).toBe(fromCard.id);
    expect(close).toMatchObject({
      orderId: closed.fill.id,
      quantity: closed.fill.quantity,
      realizedPnl: closed.fill.realizedPnl,
      fee: closed.fill.fee,
    });
    expect(close!.time).toBeGreaterThanOrEqual(open!.time);
  });

  it('pages with the cursor, and filters by account', async () => {
    for (let i = 0; i < 3; i += 1) await order(ann, { symbol: 'SOL/USDT', side: 'long', amount: 100 });
    const first = await history(ann, '?limit=2');
    expect(first.trades).toHaveLength(2);
    expect(first.nextCursor).not.toBeNull();
    const second = await history(ann, `?limit=2&cursor=${first.nextCursor}`);
    const third = await history(ann, `?limit=2&cursor=${second.nextCursor}`);
    const ids = [...first.trades, ...second.trades, ...third.trades].map((tr) => Number(tr.id));
    expect(ids).toHaveLength(6);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);
    expect(third.nextCursor).toBeNull();
    expect((await history(ann, '?account=paper&limit=200')).trades).toHaveLength(6);
    expect((await history(ann, '?account=0b0c6a4e-0000-4000-8000-000000000000')).trades).toEqual([]);

    const bad = await t.app.inject({ url: '/api/trades?limit=0', headers: ann });
    expect(bad.statusCode).toBe(422);
    const badCursor = await t.app.inject({ url: '/api/trades?cursor=abc', headers: ann });
    expect(badCursor.statusCode).toBe(422);
  });

  it('gives the same fills as CSV, newest first, a page at a time with the next cursor in a header', async () => {
    const all = (await history(ann, '?limit=200')).trades;
    const res = await t.app.inject({ url: '/api/trades.csv', headers: ann });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="trades.csv"');
    expect(res.headers['x-next-cursor']).toBeUndefined();
    const lines = res.body.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'time,symbol,side,quantity,price,realized_pnl,fee,source,rule_name,rule_id,account,account_mode,key_hint,order_id,venue',
    );
    expect(lines.slice(1).map((l) => l.split(',').at(-2))).toEqual(all.map((tr) => tr.orderId));
    const [newest] = all;
    expect(lines[1]).toBe(
      [new Date(newest!.time).toISOString(), newest!.symbol, newest!.side, newest!.quantity, newest!.price]
        .concat([
          // Paper fills always know their figures; an unknown one is an empty cell.
          newest!.realizedPnl ?? '',
          newest!.fee ?? '',
          newest!.source,
          '',
          '',
          'paper',
          'paper',
          '',
          newest!.orderId,
          'paper',
        ])
        .join(','),
    );

    const page = await t.app.inject({ url: '/api/trades.csv?limit=2', headers: ann });
    expect(page.body.trimEnd().split('\r\n')).toHaveLength(3);
    const cursor = page.headers['x-next-cursor'];
    expect(cursor).toBe(all[1]!.id);
    const older = await t.app.inject({
      url: `/api/trades.csv?limit=2&cursor=${String(cursor)}`,
      headers: ann,
    });
    expect(older.body.split('\r\n')[1]?.split(',').at(-2)).toBe(all[2]!.orderId);
    expect((await t.app.inject({ url: '/api/trades.csv' })).statusCode).toBe(401);
    expect((await t.app.inject({ url: '/api/trades.csv', headers: bob })).body).toBe(lines[0] + '\r\n');
  });

  it("never shows another user's fills, even with their cursor", async () => {
    expect((await history(bob)).trades).toEqual([]);
    await order(bob, { symbol: 'BNB/USDT', side: 'long', amount: 200 });
    const bobs = await history(bob);
    expect(bobs.trades.map((tr) => tr.symbol)).toEqual(['BNB/USDT']);
    const anns = await history(ann, '?limit=200');
    expect(anns.trades.some((tr) => tr.symbol === 'BNB/USDT')).toBe(false);
    const newest = Number(bobs.trades[0]!.id) + 1;
    expect(
      (await history(ann, `?cursor=${newest}&limit=200`)).trades.every((tr) => tr.symbol !== 'BNB/USDT'),
    ).toBe(true);
  });

  it('names the rule that opened and closed a position', async () => {
    const carol = await signUpAndLogIn(t.app, 'carol');
    const made = await t.app.inject({
      method: 'POST',
      url: '/api/rules/',
      headers: carol,
      payload: {
        ruleName: 'scalp DOGE',
        conditions: { asset: 'DOGE' },
        action: {
          type: 'trade',
          side: 'long',
          amount_usd: 200,
          exit: { take_profit_pct: 0.0001, stop_loss_pct: 0.0001 },
        },
        isActive: true,
      },
    });
    expect(made.statusCode, made.body).toBe(201);
    const rule = made.json() as { id: string };
    await t.api.rules.engine.reload();
    await t.api.rules.engine.evaluate(completedSignal({ id: freshSignalId(), assets: ['DOGE'] }));
    await t.api.rules.exits.reload();
    const page = await until(async () => {
      const seen = await history(carol);
      return seen.trades.length === 2 ? seen : undefined;
    });
    expect(page.trades.map((tr) => [tr.side, tr.source, tr.ruleId, tr.ruleName])).toEqual([
      ['sell', 'rule', rule.id, 'scalp DOGE'],
      ['buy', 'rule', rule.id, 'scalp DOGE'],
    ]);
    expect(page.trades[0]!.quantity).toBe(page.trades[1]!.quantity);
  });
});
