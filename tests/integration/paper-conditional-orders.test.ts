import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../server/db/client';
import { paperLedger, users } from '../../server/db/schema';
import type {
  ConditionalOrderRequest,
  ConditionalUpdateEvent,
  ExchangeEvent,
} from '../../server/modules/trading/exchange';
import type { LedgerEvent } from '../../server/modules/trading/paper/account';
import { LedgerRepo } from '../../server/modules/trading/paper/ledger.repo';
import { PaperExchange } from '../../server/modules/trading/paper/paper-exchange';
import { dbTargets, useDatabase } from '../helpers/db';

type Fill = Extract<LedgerEvent, { type: 'fill' }>;

const TAKER = 0.0005;

/** The repository, counting the account loads (replays) it answers. */
class CountingRepo extends LedgerRepo {
  loads = 0;
  override load(userId: string, afterSeq = 0) {
    this.loads += 1;
    return super.load(userId, afterSeq);
  }
}

/**
 * Conditional orders on the paper exchange, as Binance's algo service runs them: each test scripts the
 * mark and calls the check the server runs on each move of the marks.
 */
describe.each(dbTargets())('paper conditional orders on %s', (name) => {
  const db = useDatabase(name);
  let database: Database;

  /** One process's paper exchange over the test database, marked (and filled, no slippage) at `marks`. */
  const exchange = (
    marks: Map<string, number>,
    opts: Partial<ConstructorParameters<typeof PaperExchange>[0]> = {},
  ) =>
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

  const ledger = (user: string) =>
    database.db.select().from(paperLedger).where(eq(paperLedger.userId, user)).orderBy(asc(paperLedger.seq));

  /** The fills a conditional order sent. */
  const firedFills = async (user: string) =>
    (await ledger(user))
      .map((r) => r.event)
      .filter((e): e is Fill => e.type === 'fill' && e.algoId !== undefined);

  const algoUpdates = (events: ExchangeEvent[]) =>
    events.filter((e): e is ConditionalUpdateEvent => e.e === 'ALGO_UPDATE');

  /** Walks the mark of `symbol` along `path`, checking after each step. */
  async function walk(ex: PaperExchange, marks: Map<string, number>, symbol: string, path: number[]) {
    for (const price of path) {
      marks.set(symbol, price);
      await ex.checkConditionals(new Set([symbol]));
    }
  }

  const long = (ex: PaperExchange, user: string, quoteAmount = '6000', symbol = 'BTCUSDT') =>
    ex.placeMarketOrder(user, { symbol, side: 'BUY', quoteAmount, newClientOrderId: `open-${symbol}` });

  const stop = (over: Partial<ConditionalOrderRequest> = {}): ConditionalOrderRequest => ({
    symbol: 'BTCUSDT',
    side: 'SELL',
    type: 'STOP_MARKET',
    triggerPrice: '59000',
    closePosition: true,
    clientAlgoId: 'sl-1',
    ...over,
  });
  const takeProfit = (over: Partial<ConditionalOrderRequest> = {}): ConditionalOrderRequest =>
    stop({ type: 'TAKE_PROFIT_MARKET', triggerPrice: '62000', clientAlgoId: 'tp-1', ...over });
  const trailing = (over: Partial<ConditionalOrderRequest> = {}): ConditionalOrderRequest => ({
    symbol: 'BTCUSDT',
    side: 'SELL',
    type: 'TRAILING_STOP_MARKET',
    quantity: '0.05',
    callbackRate: '1',
    clientAlgoId: 'ts-1',
    ...over,
  });

  beforeAll(async () => {
    database = await db.open();
  });
  afterAll(async () => {
    await database.close();
    await db.cleanup();
  });

  it('places, looks up, lists and cancels, telling each change as ALGO_UPDATE', async () => {
    const user = await newUser('resting');
    const marks = new Map([
      ['BTCUSDT', 60_000],
      ['ETHUSDT', 3_000],
    ]);
    const ex = exchange(marks);
    const events: ExchangeEvent[] = [];
    ex.subscribe(user, (e) => events.push(e));
    const everyAccount: string[] = [];
    ex.subscribeAll((account, e) => everyAccount.push(`${account} ${e.e}`));

    // With no position open, as Binance allows.
    const placed = await ex.placeConditional(user, stop());
    expect(placed).toMatchObject({
      clientAlgoId: 'sl-1',
      symbol: 'BTCUSDT',
      side: 'SELL',
      type: 'STOP_MARKET',
      status: 'NEW',
      triggerPrice: '59000',
      quantity: null,
      closePosition: true,
      callbackRate: null,
      activatePrice: null,
      actualOrderId: null,
    });
    const eth = await ex.placeConditional(
      user,
      trailing({ symbol: 'ETHUSDT', quantity: '1', activatePrice: '3100', clientAlgoId: 'eth-trail' }),
    );
    expect(eth).toMatchObject({ status: 'NEW', quantity: '1', callbackRate: '1', activatePrice: '3100' });

    expect(await ex.queryConditional(user, 'BTCUSDT', 'sl-1')).toEqual(placed);
    expect(await ex.queryConditional(user, 'ETHUSDT', 'sl-1')).toBeNull();
    expect(await ex.queryConditional(user, 'BTCUSDT', 'nope')).toBeNull();
    expect((await ex.openConditionals(user)).map((o) => o.clientAlgoId)).toEqual(['sl-1', 'eth-trail']);
    expect(await ex.openConditionals(user, 'ETHUSDT')).toEqual([eth]);

    const cancelled = await ex.cancelConditional(user, 'BTCUSDT', 'sl-1');
    expect(cancelled).toMatchObject({ algoId: placed.algoId, status: 'CANCELED' });
    expect(await ex.cancelConditional(user, 'BTCUSDT', 'sl-1')).toBeNull();
    expect(await ex.queryConditional(user, 'BTCUSDT', 'sl-1')).toEqual(cancelled);
    expect(await ex.openConditionals(user)).toEqual([eth]);

    expect(algoUpdates(events).map((e) => [e.order.clientAlgoId, e.order.status])).toEqual([
      ['sl-1', 'NEW'],
      ['eth-trail', 'NEW'],
      ['sl-1', 'CANCELED'],
    ]);
    expect(everyAccount).toEqual(Array.from({ length: 3 }, () => `${user} ALGO_UPDATE`));
    // Each change is a ledger row of the account.
    expect((await ledger(user)).map((r) => [r.type, r.symbol])).toEqual([
      ['deposit', null],
      ['conditional', 'BTCUSDT'],
      ['conditional', 'ETHUSDT'],
      ['conditional-end', 'BTCUSDT'],
    ]);

    // A client id is unique among open orders only: once cancelled, it may be used again.
    const again = await ex.placeConditional(user, stop({ triggerPrice: '58000' }));
    expect(again.algoId).not.toBe(placed.algoId);
    expect(await ex.queryConditional(user, 'BTCUSDT', 'sl-1')).toEqual(again);
  });

  it("refuses as Binance does, with Binance's codes, and writes nothing", async () => {
    const user = await newUser('refused');
    const marks = new Map([['BTCUSDT', 60_000]]);
    const ex = exchange(marks);
    await long(ex, user);
    await ex.placeConditional(user, stop({ clientAlgoId: 'taken' }));
    const rowsBefore = (await ledger(user)).length;

    const refusals: [string, ConditionalOrderRequest, number, string?][] = [
      ['a SELL stop at the mark', stop({ triggerPrice: '60000' }), -2021, 'Order would immediately trigger.'],
      ['a SELL stop above the mark', stop({ triggerPrice: '60500' }), -2021],
      ['a SELL take-profit below the mark', takeProfit({ triggerPrice: '59500' }), -2021],
      ['a BUY stop below the mark', stop({ side: 'BUY', triggerPrice: '59500' }), -2021],
      ['a BUY take-profit above the mark', takeProfit({ side: 'BUY', triggerPrice: '60500' }), -2021],
      ['a SELL trailing stop activated below the mark', trailing({ activatePrice: '59000' }), -2021],
      [
        'a BUY trailing stop activated above the mark',
        trailing({ side: 'BUY', activatePrice: '61000' }),
        -2021,
      ],
      ['a callback rate under 0.1 %', trailing({ callbackRate: '0.09' }), -2007, 'Invalid callBack rate.'],
      ['a callback rate over 10 %', trailing({ callbackRate: '10.1' }), -2007],
      [
        'closePosition with a quantity',
        stop({ quantity: '0.1' }),
        -4137,
        'Quantity must be zero with closePosition equals true.',
      ],
      [
        'the client id of an open order',
        stop({ clientAlgoId: 'taken' }),
        -4116,
        'ClientOrderId is duplicated.',
      ],
      ['a client id with a space', stop({ clientAlgoId: 'stop loss' }), -1100],
      ['a client id of 37 characters', stop({ clientAlgoId: 'x'.repeat(37) }), -1100],
      ['an unknown symbol', stop({ symbol: 'NOPEUSDT' }), -1121],
      ['a stop without its trigger', stop({ triggerPrice: undefined }), -1102],
      ['a trailing stop without its rate', trailing({ callbackRate: undefined }), -1102],
      ['a trailing stop without a quantity', trailing({ quantity: undefined }), -1102],
      [
        'a trailing stop on the whole position',
        trailing({ quantity: undefined, closePosition: true }),
        -1106,
      ],
      ['a trigger off the tick', stop({ triggerPrice: '59000.05' }), -4014],
      ['a quantity off the step', trailing({ quantity: '0.0505' }), -1111],
    ];
    for (const [what, request, code, msg] of refusals) {
      const refused = ex.placeConditional(user, request);
      await expect(refused, what).rejects.toMatchObject({ name: 'ExchangeError', code });
      if (msg !== undefined) await expect(refused, what).rejects.toMatchObject({ msg });
    }
    expect((await ledger(user)).length).toBe(rowsBefore);
    expect((await ex.openConditionals(user)).map((o) => o.clientAlgoId)).toEqual(['taken']);

    // The bounds themselves are Binance's: 0.1 % and 10 % are accepted.
    await ex.placeConditional(user, trailing({ callbackRate: '0.1', clientAlgoId: 'low' }));
    await ex.placeConditional(user, trailing({ callbackRate: '10', clientAlgoId: 'high' }));
    expect(await ex.openConditionals(user)).toHaveLength(3);
  });

  it('fires a stop at its mark with the taker fee, and expires the take-profit beside it', async () => {
    const user = await newUser('stopped');
    const marks = new Map([['BTCUSDT', 60_000]]);
    const ex = exchange(marks);
    await long(ex, user);
    const sl = await ex.placeConditional(user, stop());
    const tp = await ex.placeConditional(user, takeProfit());
    const events: ExchangeEvent[] = [];
    ex.subscribe(user, (e) => events.push(e));

    await walk(ex, marks, 'BTCUSDT', [59_800, 61_900, 59_000.1]);
    expect(events).toEqual([]);
    expect(await firedFills(user)).toEqual([]);

    await walk(ex, marks, 'BTCUSDT', [59_000]);
    const [fill, ...more] = await firedFills(user);
    expect(more).toEqual([]);
    expect(fill).toMatchObject({
      algoId: sl.algoId,
      side: 'SELL',
      qty: '0.1',
      price: '59000',
      reduceOnly: true,
    });
    expect(Number(fill!.fee)).toBeCloseTo(0.1 * 59_000 * TAKER, 10);
    expect(await ex.positionRisk(user)).toEqual([]);

    expect(
      events.map((e) => (e.e === 'ALGO_UPDATE' ? `${e.order.clientAlgoId} ${e.order.status}` : e.e)),
    ).toEqual(['sl-1 TRIGGERED', 'ORDER_TRADE_UPDATE', 'ACCOUNT_UPDATE', 'sl-1 FINISHED', 'tp-1 EXPIRED']);
    const trade = events.find((e) => e.e === 'ORDER_TRADE_UPDATE');
    expect(trade?.e === 'ORDER_TRADE_UPDATE' && trade.o).toMatchObject({
      i: fill!.orderId,
      S: 'SELL',
      R: true,
      n: fill!.fee,
    });
    expect(await ex.queryConditional(user, 'BTCUSDT', 'sl-1')).toMatchObject({
      status: 'FINISHED',
      actualOrderId: fill!.orderId,
    });
    const [expired] = algoUpdates(events).filter((e) => e.order.algoId === tp.algoId);
    expect(expired?.reason).toMatch(/position on BTCUSDT was closed/);
    expect(await ex.queryConditional(user, 'BTCUSDT', 'tp-1')).toMatchObject({ status: 'EXPIRED' });
    expect(await ex.openConditionals(user)).toEqual([]);
    // The market order it sent is booked like any other: looked up by its client id.
    expect(await ex.queryOrder(user, fill!.clientOrderId)).toMatchObject({
      orderId: fill!.orderId,
      status: 'FILLED',
    });

    // The account's next moves of the mark find nothing to do.
    await walk(ex, marks, 'BTCUSDT', [58_000, 63_000]);
    expect(await firedFills(user)).toHaveLength(1);
  });

  it('fires a take-profit at its mark, and a BUY stop protecting a short', async () => {
    const user = await newUser('targeted');
    const marks = new Map([
      ['BTCUSDT', 60_000],
      ['ETHUSDT', 3_000],
    ]);
    const ex = exchange(marks);
    await long(ex, user);
    await ex.placeMarketOrder(user, {
      symbol: 'ETHUSDT',
      side: 'SELL',
      quoteAmount: '3000',
      newClientOrderId: 'short',
    });
    const tp = await ex.placeConditional(user, takeProfit());
    const sl = await ex.placeConditional(user, stop());
    const cover = await ex.placeConditional(
      user,
      stop({ symbol: 'ETHUSDT', side: 'BUY', triggerPrice: '3150', clientAlgoId: 'cover' }),
    );

    await walk(ex, marks, 'BTCUSDT', [61_999.9, 62_000]);
    await walk(ex, marks, 'ETHUSDT', [3_149.99, 3_150.5]);
    const fills = await firedFills(user);
    expect(fills.map((f) => [f.algoId, f.symbol, f.side, f.qty, f.price])).toEqual([
      [tp.algoId, 'BTCUSDT', 'SELL', '0.1', '62000'],
      [cover.algoId, 'ETHUSDT', 'BUY', '1', '3150.5'],
    ]);
    for (const f of fills) expect(Number(f.fee)).toBeCloseTo(Number(f.qty) * Number(f.price) * TAKER, 10);
    expect(await ex.queryConditional(user, 'BTCUSDT', 'sl-1')).toMatchObject({
      algoId: sl.algoId,
      status: 'EXPIRED',
    });
    expect(await ex.positionRisk(user)).toEqual([]);
  });

  it('trails the highest mark from placing, and fires 1 % under it, closing its quantity only', async () => {
    const user = await newUser('trailed');
    const marks = new Map([['BTCUSDT', 60_000]]);
    const ex = exchange(marks);
    await long(ex, user);
    const ts = await ex.placeConditional(user, trailing());

    // 61 000 is the high: it fires at 61 000 × 0.99 = 60 390, not a tick above.
    await walk(ex, marks, 'BTCUSDT', [60_500, 61_000, 60_800, 60_390.1]);
    expect(await firedFills(user)).toEqual([]);
    await walk(ex, marks, 'BTCUSDT', [60_390]);
    const [fill] = await firedFills(user);
    expect(fill).toMatchObject({ algoId: ts.algoId, qty: '0.05', price: '60390' });
    expect(Number(fill!.fee)).toBeCloseTo(0.05 * 60_390 * TAKER, 10);
    // Half the position is left, and nothing rests on it any more.
    expect((await ex.positionRisk(user))[0]?.positionAmt).toBe('0.05');
    expect(await ex.openConditionals(user)).toEqual([]);
    // The highs it saw are ledger rows (a restart and another process follow the same high).
    const trails = (await ledger(user)).filter((r) => r.type === 'conditional-trail');
    expect(trails.map((r) => (r.event as { extreme: string }).extreme)).toEqual(['60500', '61000']);
  });

  it('arms a trailing stop only once the mark reaches its activation price, and closes at most what is open', async () => {
    const user = await newUser('activated');
    const marks = new Map([['BTCUSDT', 60_000]]);
    const ex = exchange(marks);
    await long(ex, user);
    const ts = await ex.placeConditional(
      user,
      trailing({ quantity: '0.5', callbackRate: '2', activatePrice: '61000' }),
    );

    // Far below the activation price: not armed, so nothing fires.
    await walk(ex, marks, 'BTCUSDT', [60_800, 58_000, 60_999.9]);
    expect(await firedFills(user)).toEqual([]);
    expect((await ledger(user)).filter((r) => r.type === 'conditional-trail')).toEqual([]);
    // Armed at 61 000, high 61 500: fires at 61 500 × 0.98 = 60 270.
    await walk(ex, marks, 'BTCUSDT', [61_000, 61_500, 60_300]);
    expect(await firedFills(user)).toEqual([]);
    await walk(ex, marks, 'BTCUSDT', [60_200]);
    const [fill] = await firedFills(user);
    expect(fill).toMatchObject({ algoId: ts.algoId, qty: '0.1', price: '60200' });
    expect(await ex.positionRisk(user)).toEqual([]);
  });

  it('trails a short with a BUY: the lowest mark, and fires the rate above it', async () => {
    const user = await newUser('short-trail');
    const marks = new Map([['ETHUSDT', 3_000]]);
    const ex = exchange(marks);
    await ex.placeMarketOrder(user, {
      symbol: 'ETHUSDT',
      side: 'SELL',
      quoteAmount: '3000',
      newClientOrderId: 's',
    });
    await ex.placeConditional(
      user,
      trailing({ symbol: 'ETHUSDT', side: 'BUY', quantity: '1', callbackRate: '5', activatePrice: '2900' }),
    );
    // Armed at 2 900, low 2 800: fires at 2 800 × 1.05 = 2 940.
    await walk(ex, marks, 'ETHUSDT', [3_100, 2_900, 2_800, 2_939.99]);
    expect(await firedFills(user)).toEqual([]);
    await walk(ex, marks, 'ETHUSDT', [2_940]);
    expect((await firedFills(user)).map((f) => [f.side, f.qty, f.price])).toEqual([['BUY', '1', '2940']]);
  });

  it('a position closed by hand, or liquidated, ends the orders resting on it', async () => {
    const user = await newUser('by-hand');
    const marks = new Map([
      ['BTCUSDT', 60_000],
      ['SOLUSDT', 150],
    ]);
    const ex = exchange(marks);
    await long(ex, user);
    await ex.placeConditional(user, stop());
    await ex.placeConditional(user, takeProfit());
    await ex.placeConditional(user, trailing());
    const events: ExchangeEvent[] = [];
    ex.subscribe(user, (e) => events.push(e));

    await ex.closePosition(user, 'BTCUSDT', 'by-hand');
    expect(algoUpdates(events).map((e) => [e.order.clientAlgoId, e.order.status])).toEqual([
      ['sl-1', 'EXPIRED'],
      ['tp-1', 'EXPIRED'],
      ['ts-1', 'EXPIRED'],
    ]);
    expect(await ex.openConditionals(user)).toEqual([]);
    await walk(ex, marks, 'BTCUSDT', [55_000, 65_000]);
    expect(await firedFills(user)).toEqual([]);

    // A fill that only reduces the position leaves them resting.
    await long(ex, user, '6000', 'SOLUSDT');
    await ex.placeConditional(user, stop({ symbol: 'SOLUSDT', triggerPrice: '100', clientAlgoId: 'sol-sl' }));
    await ex.reducePosition(user, {
      symbol: 'SOLUSDT',
      opened: 'BUY',
      quantity: '10',
      clientOrderId: 'half',
    });
    expect(await ex.openConditionals(user, 'SOLUSDT')).toHaveLength(1);

    // A liquidation closes the position: its stop (below the liquidation price) ends with it.
    const lp = Number((await ex.positionRisk(user))[0]?.liquidationPrice);
    marks.set('SOLUSDT', lp - 0.01);
    await ex.checkLiquidations(new Set(['SOLUSDT']));
    expect(await ex.positionRisk(user)).toEqual([]);
    expect(await ex.queryConditional(user, 'SOLUSDT', 'sol-sl')).toMatchObject({ status: 'EXPIRED' });
  });

  it('with nothing open when it fires, it is refused as a reduce-only order is, and fills nothing', async () => {
    const user = await newUser('nothing-open');
    const marks = new Map([['BTCUSDT', 60_000]]);
    const ex = exchange(marks);
    const events: ExchangeEvent[] = [];
    ex.subscribe(user, (e) => events.push(e));
    await ex.placeConditional(user, stop());
    await walk(ex, marks, 'BTCUSDT', [58_000]);
    expect(await ex.queryConditional(user, 'BTCUSDT', 'sl-1')).toMatchObject({
      status: 'REJECTED',
      actualOrderId: null,
    });
    expect(algoUpdates(events).map((e) => e.order.status)).toEqual(['NEW', 'REJECTED']);
    expect(algoUpdates(events)[1]?.reason).toBeTruthy();
    expect(events.filter((e) => e.e !== 'ALGO_UPDATE')).toEqual([]);
    expect((await ledger(user)).filter((r) => r.type === 'fill')).toEqual([]);
  });

  it('a reset clears them', async () => {
    const user = await newUser('reset');
    const marks = new Map([['BTCUSDT', 60_000]]);
    const ex = exchange(marks);
    await long(ex, user);
    await ex.placeConditional(user, stop());
    await ex.placeConditional(user, trailing());
    const events: ExchangeEvent[] = [];
    ex.subscribe(user, (e) => events.push(e));
    await ex.reset(user);
    expect(algoUpdates(events).map((e) => [e.order.clientAlgoId, e.order.status])).toEqual([
      ['sl-1', 'CANCELED'],
      ['ts-1', 'CANCELED'],
    ]);
    expect(await ex.openConditionals(user)).toEqual([]);
    await walk(ex, marks, 'BTCUSDT', [50_000]);
    expect(await firedFills(user)).toEqual([]);
  });

  it('after a restart the orders still rest, trail from the high seen before, and fire', async () => {
    const user = await newUser('restarted');
    const marks = new Map([['BTCUSDT', 60_000]]);
    // Snapshots every 3 rows: the restart reads the orders from a snapshot and the rows after it.
    const before = exchange(marks, { snapshotEvery: 3 });
    await long(before, user);
    await before.placeConditional(user, stop({ triggerPrice: '55000' }));
    await before.placeConditional(user, trailing({ callbackRate: '2' }));
    await walk(before, marks, 'BTCUSDT', [61_000, 62_000, 61_000]);
    const resting = await before.openConditionals(user);

    const after = exchange(marks, { snapshotEvery: 3 });
    expect(await after.openConditionals(user)).toEqual(resting);
    // 62 000 × 0.98 = 60 760: the high seen before the restart is the one it trails from.
    await walk(after, marks, 'BTCUSDT', [60_800]);
    expect(await firedFills(user)).toEqual([]);
    await walk(after, marks, 'BTCUSDT', [60_760]);
    expect((await firedFills(user)).map((f) => [f.qty, f.price])).toEqual([['0.05', '60760']]);
    await walk(after, marks, 'BTCUSDT', [55_000]);
    expect((await firedFills(user)).map((f) => [f.qty, f.price])).toEqual([
      ['0.05', '60760'],
      ['0.05', '55000'],
    ]);
    expect(await after.positionRisk(user)).toEqual([]);
  });

  it('thirty placements of one client id at once rest one order, through one process or two', async () => {
    for (const processes of [1, 2]) {
      const user = await newUser(`burst-${processes}`);
      const marks = new Map([['BTCUSDT', 60_000]]);
      const exchanges = Array.from({ length: processes }, () => exchange(marks, { sleep: async () => {} }));
      await Promise.all(exchanges.map((ex) => ex.balance(user)));
      const results = await Promise.allSettled(
        Array.from({ length: 30 }, (_, i) =>
          exchanges[i % processes]!.placeConditional(user, stop({ triggerPrice: String(59_000 - i) })),
        ),
      );
      const placed = results.filter((r) => r.status === 'fulfilled');
      expect(placed, `${processes} process(es)`).toHaveLength(1);
      for (const r of results) {
        if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: -4116 });
      }
      expect((await ledger(user)).filter((r) => r.type === 'conditional')).toHaveLength(1);
      for (const ex of exchanges) {
        ex.invalidate(user);
        expect(await ex.openConditionals(user)).toHaveLength(1);
      }
    }
  });

  it('two processes watching one account fire a leg once only', async () => {
    const user = await newUser('two-watchers');
    const marks = new Map([['BTCUSDT', 60_000]]);
    const [a, b] = [exchange(marks, { sleep: async () => {} }), exchange(marks, { sleep: async () => {} })];
    await long(a, user);
    const sl = await a.placeConditional(user, stop());
    await a.placeConditional(user, takeProfit());
    // The second process loads the account with both orders resting.
    expect(await b.openConditionals(user)).toHaveLength(2);
    const triggered: string[] = [];
    for (const [name, ex] of [
      ['a', a],
      ['b', b],
    ] as const) {
      ex.subscribe(user, (e) => {
        if (e.e === 'ALGO_UPDATE' && e.order.status === 'TRIGGERED') triggered.push(name);
      });
    }
    marks.set('BTCUSDT', 58_000);
    await Promise.all([a.checkConditionals(new Set(['BTCUSDT'])), b.checkConditionals(new Set(['BTCUSDT']))]);
    const fills = await firedFills(user);
    expect(fills.map((f) => f.algoId)).toEqual([sl.algoId]);
    expect(triggered).toHaveLength(1);
    for (const ex of [a, b]) {
      ex.invalidate(user);
      expect(await ex.queryConditional(user, 'BTCUSDT', 'sl-1')).toMatchObject({ status: 'FINISHED' });
      expect(await ex.queryConditional(user, 'BTCUSDT', 'tp-1')).toMatchObject({ status: 'EXPIRED' });
      expect(await ex.positionRisk(user)).toEqual([]);
    }
  });

  it('a move of the marks costs nothing for accounts without conditional orders on those symbols', async () => {
    const user = await newUser('idle');
    const marks = new Map([
      ['BTCUSDT', 60_000],
      ['ETHUSDT', 3_000],
    ]);
    const repo = new CountingRepo(database.db);
    const ex = exchange(marks, { repo });
    await long(ex, user);
    await ex.placeConditional(user, stop({ symbol: 'ETHUSDT', side: 'SELL', triggerPrice: '2000' }));
    // Forgotten (as when another process wrote to it): a check that needs the account replays it.
    ex.invalidate(user);
    const loads = repo.loads;
    await walk(ex, marks, 'BTCUSDT', [50_000, 70_000]);
    expect(repo.loads).toBe(loads);
    await walk(ex, marks, 'ETHUSDT', [2_500]);
    expect(repo.loads).toBe(loads + 1);
    // Once the order is gone, the symbol costs nothing again.
    await ex.cancelConditional(user, 'ETHUSDT', 'sl-1');
    ex.invalidate(user);
    await walk(ex, marks, 'ETHUSDT', [1_000]);
    expect(repo.loads).toBe(loads + 1);
  });
});
