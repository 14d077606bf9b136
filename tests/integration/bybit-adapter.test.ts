import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bybitKeyChecker } from '../../server/modules/exchanges/key-check-bybit';
import type {
  ConditionalOrderRequest,
  ConditionalType,
  ExchangeEvent,
} from '../../server/modules/trading/exchange';
import {
  CloseAllIncomplete,
  ExchangeError,
  OrderOutcomeUnknown,
  VenueAnswerUnreadable,
  VenueRateLimited,
} from '../../server/modules/trading/exchange-error';
import { startBybitDouble, type BybitDouble } from '../fixtures/bybit-double';
import {
  adapterOn,
  codeOf,
  hex,
  leg,
  newAccount,
  order,
  refusal,
  seen,
  statusOf,
  until,
} from '../fixtures/bybit-kit';

let double: BybitDouble;
beforeEach(async () => {
  double = await startBybitDouble();
});
afterEach(async () => {
  await double.close();
});

describe('Bybit linear adapter against the Bybit double', () => {
  it('signs as Bybit documents: a wrong secret is 10004, an unknown key 10003, a skewed clock is caught up', async () => {
    const a = newAccount(double);
    const wrong = adapterOn(double, [{ ...a, creds: { ...a.creds, secret: 'not-the-secret' } }]).adapter;
    expect(await refusal(wrong.balance(a.account))).toMatchObject({
      code: 10004,
      msg: expect.stringContaining('Error sign'),
    });
    const stranger = adapterOn(double, [{ ...a, creds: { apiKey: 'NoSuchKey123', secret: 'x' } }]).adapter;
    expect(await codeOf(stranger.balance(a.account))).toBe(10003);
    const { adapter, client } = adapterOn(double, [a]);
    await client.syncTime();
    const synced = seen(double, 'GET /v5/market/time').length;
    double.clockSkewMs = 30_000; // Bybit's clock moved on: the first try is 10002, the resync fixes it
    expect((await adapter.balance(a.account)).balance).toBe('1000.00000000');
    expect(seen(double, 'GET /v5/market/time')).toHaveLength(synced + 1);
    // The secret never travels: only its signature does.
    expect(double.requests().some((r) => r.includes(a.creds.secret))).toBe(false);
  });

  it("sizes orders on Bybit's lot filters and sends the base-coin qty; a minimum not met is refused unsent", async () => {
    const a = newAccount(double, { balance: 10_000 });
    const { adapter } = adapterOn(double, [a]);
    expect((await adapter.filters('ETHUSDT')).stepSize.toFixed()).toBe('0.01');
    const preview = await adapter.previewOnVenue(a.account, order(hex(1), '100'));
    expect([preview.quantity.toFixed(), preview.fee.toFixed(), preview.leverage]).toEqual([
      '0.002',
      '0.066',
      10,
    ]);
    const btc = await adapter.placeMarketOrder(a.account, order(hex(1), '100')); // 100 / 60000 → 0.002
    expect(btc).toMatchObject({
      status: 'FILLED',
      executedQty: '0.002',
      avgPrice: '60000',
      clientOrderId: hex(1),
    });
    expect(btc.commission).toBe('0.066'); // 0.002 × 60000 × 0.055 %
    await adapter.placeMarketOrder(a.account, order(hex(2), '50', 'ETHUSDT')); // 50 / 3000 → 0.02
    await adapter.placeMarketOrder(a.account, order(hex(3), '100', 'SOLUSDT', 'SELL')); // 100 / 150 → 0.7
    expect(double.orders(a.creds.apiKey).map((o) => [o.symbol, o.side, o.quantity])).toEqual([
      ['BTCUSDT', 'BUY', 0.002],
      ['ETHUSDT', 'BUY', 0.02],
      ['SOLUSDT', 'SELL', 0.7],
    ]);
    expect(seen(double, 'POST /v5/order/create')[0]).toContain('"qty":"0.002"');
    const before = seen(double, 'POST /v5/order/create').length;
    expect(await codeOf(adapter.placeMarketOrder(a.account, order(hex(4), '3')))).toBe(-4164);
    expect(seen(double, 'POST /v5/order/create')).toHaveLength(before);
  });

  it('refuses a symbol Bybit does not list before anything is sent, and with the instruments known, before any request', async () => {
    const a = newAccount(double);
    const { adapter } = adapterOn(double, [a]);
    const err = await refusal(adapter.placeMarketOrder(a.account, order(hex(5), '100', 'DOGEXUSDT')));
    expect(err).toMatchObject({ code: -1121, msg: 'Bybit does not list DOGEX/USDT.' });
    expect(seen(double, 'POST /v5/order/create')).toHaveLength(0);
    const count = double.requests().length;
    expect(await codeOf(adapter.setLeverage(a.account, 'FOOUSDT', 5))).toBe(-1121);
    expect(double.requests()).toHaveLength(count);
  });

  it("keeps the app's client ids as orderLinkId when they fit, maps any other one deterministically", async () => {
    const a = newAccount(double);
    const { adapter } = adapterOn(double, [a]);
    await adapter.placeMarketOrder(a.account, order('pp-12-sl-1'));
    const odd = await adapter.placeMarketOrder(a.account, order('rule:7/close.1'));
    const [first, second] = double.orders(a.creds.apiKey).map((o) => o.clientId);
    expect(first).toBe('pp-12-sl-1');
    expect(second).toMatch(/^m-[A-Za-z0-9_-]{34}$/);
    expect(odd.clientOrderId).toBe('rule:7/close.1');
    expect(await statusOf(adapter.queryOrder(a.account, 'rule:7/close.1', 'BTCUSDT'))).toBe('FILLED');
    expect(await adapter.queryOrder(a.account, 'never-sent', 'BTCUSDT')).toBeNull();
    // The same odd id again is the same orderLinkId: Bybit refuses it as a duplicate.
    expect(await codeOf(adapter.placeMarketOrder(a.account, order('rule:7/close.1')))).toBe(-4116);
  });

  it('an order filled behind a 10016 or a time-out is unknown, then found filled by its client id: one order', async () => {
    const a = newAccount(double);
    const { adapter } = adapterOn(double, [a], { client: { timeoutMs: 300 } });
    const unknown = async (id: string) =>
      expect(await refusal(adapter.placeMarketOrder(a.account, order(id)))).toBeInstanceOf(
        OrderOutcomeUnknown,
      );
    double.failNextOrder('unknown-after-fill');
    await unknown(hex(6));
    const found = await adapter.queryOrder(a.account, hex(6), 'BTCUSDT');
    expect(found).toMatchObject({ status: 'FILLED', executedQty: '0.01' });
    double.failNextOrder('timeout');
    await unknown(hex(7));
    expect(await adapter.queryOrder(a.account, hex(7), 'BTCUSDT')).toMatchObject({ status: 'FILLED' });
    expect(double.orders(a.creds.apiKey)).toHaveLength(2);
    // A gateway's 502 on the order, or an answer that cannot be read, leaves it unknown too.
    double.gatewayError('POST /v5/order/create', 502);
    await unknown(hex(8));
    double.reshapeNext('POST /v5/order/create', (b) => ({ ...b, result: { orderId: 7 } }));
    await unknown(hex(9));
  });

  it("a duplicate is -4116 in Bybit's words, a margin refusal keeps Bybit's code, nothing is sent twice", async () => {
    const a = newAccount(double);
    const { adapter } = adapterOn(double, [a]);
    double.failNextOrder('duplicate');
    expect(await refusal(adapter.placeMarketOrder(a.account, order(hex(10))))).toMatchObject({
      code: -4116,
      msg: 'OrderLinkedID is duplicate',
    });
    double.failNextOrder('refused');
    const margin = await refusal(adapter.placeMarketOrder(a.account, order(hex(11))));
    expect(margin).toBeInstanceOf(ExchangeError);
    expect(margin).toMatchObject({ code: 110007, msg: 'Available balance is insufficient' });
    expect(await codeOf(adapter.placeMarketOrder(a.account, order(hex(12), '50000')))).toBe(110007);
    expect(double.orders(a.creds.apiKey)).toHaveLength(1);
  });

  it('10006 and a 403 ban are VenueRateLimited; the held endpoint is not asked again until the reset', async () => {
    const a = newAccount(double);
    const { adapter } = adapterOn(double, [a]);
    await adapter.balance(a.account);
    double.rateLimit(1);
    const limited = await refusal(adapter.positionRisk(a.account, true));
    expect(limited).toBeInstanceOf(VenueRateLimited);
    expect(limited).toMatchObject({ code: 10006, venue: 'Bybit', status: 429 });
    expect([1, 2]).toContain((limited as VenueRateLimited).retryAfterSeconds); // the reset, a second on
    const asked = seen(double, 'GET /v5/position/list').length;
    expect(await refusal(adapter.positionRisk(a.account, true))).toBeInstanceOf(VenueRateLimited);
    expect(seen(double, 'GET /v5/position/list')).toHaveLength(asked);
    expect((await adapter.balance(a.account)).asset).toBe('USDT'); // another endpoint is not held
    await new Promise((r) => setTimeout(r, 1_100));
    expect(await adapter.positionRisk(a.account, true)).toEqual([]);
    double.banIp(1);
    const banned = { status: 403, retryAfterSeconds: 600, venue: 'Bybit' };
    expect(await refusal(adapter.balance(a.account))).toMatchObject(banned);
  });

  it('an answer in an unexpected shape is VenueAnswerUnreadable naming Bybit and the field', async () => {
    const a = newAccount(double);
    const { adapter } = adapterOn(double, [a]);
    await adapter.placeMarketOrder(a.account, order(hex(13)));
    double.reshapeNext('GET /v5/position/list', (b) => {
      const result = b.result as { list: Record<string, unknown>[] };
      return { ...b, result: { ...result, list: result.list.map(({ size: _s, ...rest }) => rest) } };
    });
    const err = await refusal(adapter.positionRisk(a.account, true));
    expect(err).toBeInstanceOf(VenueAnswerUnreadable);
    expect((err as VenueAnswerUnreadable).detail).toBe(
      'Bybit sent an answer we could not read for the positions (list.size missing). Nothing was changed.',
    );
  });

  it('positions are one-way and signed; reduce, close and close-all send reduce-only market orders', async () => {
    const a = newAccount(double, { balance: 10_000 });
    const { adapter } = adapterOn(double, [a]);
    await adapter.placeMarketOrder(a.account, order(hex(14), '1200')); // 0.02 BTC long
    await adapter.placeMarketOrder(a.account, order(hex(15), '300', 'ETHUSDT', 'SELL')); // 0.1 ETH short
    double.setPrice('BTCUSDT', 61_000);
    const rows = await adapter.positionRisk(a.account, true);
    expect(rows.map((p) => [p.symbol, p.positionAmt, p.entryPrice, p.unRealizedProfit])).toEqual([
      ['BTCUSDT', '0.02', '60000', '20.00000000'],
      ['ETHUSDT', '-0.1', '3000', '0.00000000'],
    ]);
    expect(
      await adapter.reducePosition(a.account, {
        symbol: 'ETHUSDT',
        opened: 'BUY',
        quantity: '1',
        clientOrderId: 'r-1',
      }),
    ).toBeNull();
    const reduced = await adapter.reducePosition(a.account, {
      symbol: 'BTCUSDT',
      opened: 'BUY',
      quantity: '0.015',
      clientOrderId: 'r-2',
    });
    expect(reduced).toMatchObject({
      side: 'SELL',
      executedQty: '0.015',
      reduceOnly: true,
      realizedPnl: '15',
    });
    const closed = await adapter.closePosition(a.account, 'BTCUSDT', 'c-1');
    expect(closed).toMatchObject({ executedQty: '0.005', realizedPnl: '5', commission: '0.16775' });
    expect(await adapter.closePosition(a.account, 'BTCUSDT', 'c-2')).toBeNull();
    await adapter.placeMarketOrder(a.account, order(hex(16), '300', 'SOLUSDT'));
    const all = await adapter.closeAllPositions(a.account, 'ca-1');
    expect(all.map((r) => [r.symbol, r.side, r.executedQty])).toEqual([
      ['ETHUSDT', 'BUY', '0.1'],
      ['SOLUSDT', 'SELL', '2'],
    ]);
    expect(double.position(a.creds.apiKey, 'ETHUSDT')).toBe(0);
    expect(await adapter.positionRisk(a.account, true)).toEqual([]);
    const balance = await adapter.balance(a.account);
    expect(Number(balance.balance)).toBeLessThan(10_020);
    expect(await adapter.setLeverage(a.account, 'BTCUSDT', 10)).toEqual({ symbol: 'BTCUSDT', leverage: 10 }); // 110043
    expect(await adapter.setLeverage(a.account, 'BTCUSDT', 25)).toEqual({ symbol: 'BTCUSDT', leverage: 25 });
    expect(await codeOf(adapter.setLeverage(a.account, 'BTCUSDT', 101))).toBe(-4028);
  });

  it('a close-all with one close unknown closes the rest and says which is unknown', async () => {
    const a = newAccount(double, { balance: 10_000 });
    const { adapter } = adapterOn(double, [a]);
    await adapter.placeMarketOrder(a.account, order(hex(17), '600'));
    await adapter.placeMarketOrder(a.account, order(hex(18), '300', 'ETHUSDT'));
    double.failNextOrder('unknown-after-fill');
    const err = await refusal(adapter.closeAllPositions(a.account, 'ca-2'));
    expect(err).toBeInstanceOf(CloseAllIncomplete);
    expect((err as CloseAllIncomplete).unknown.map((u) => u.clientOrderId)).toEqual(['ca-2-0']);
    expect((err as CloseAllIncomplete).fills.map((f) => f.symbol)).toEqual(['ETHUSDT']);
  });

  it("rests the position's stop, target and trailing stop in its TP/SL slots; finds, cancels and fires them", async () => {
    const a = newAccount(double);
    const { adapter } = adapterOn(double, [a]);
    await adapter.placeMarketOrder(a.account, order(hex(19)));
    const place = (r: ConditionalOrderRequest) => adapter.placeConditional(a.account, r);
    const query = (type: ConditionalType) => adapter.queryConditional(a.account, 'BTCUSDT', 'pp-1', type);
    const cancel = (type: ConditionalType) => adapter.cancelConditional(a.account, 'BTCUSDT', 'pp-1', type);
    // The same leg sent 30 times at once sets one slot: a retry never leaves two stops.
    const stops = Array.from({ length: 30 }, () => place(leg('STOP_MARKET', { triggerPrice: '59000' })));
    const [sl] = await Promise.all(stops);
    expect(sl).toMatchObject({ status: 'NEW', triggerPrice: '59000', clientAlgoId: 'pp-1-STOP_MARKET-1' });
    await place(leg('TAKE_PROFIT_MARKET', { triggerPrice: '62000', closePosition: true }));
    await place(leg('TRAILING_STOP_MARKET', { quantity: '0.01', callbackRate: '1' }));
    expect(seen(double, 'POST /v5/position/trading-stop').at(-1)).toContain('"trailingStop":"600"');
    expect(double.restingLegs(a.creds.apiKey, 'BTCUSDT')).toEqual([
      { kind: 'sl', trigger: 59000 },
      { kind: 'tp', trigger: 62000 },
      { kind: 'trail', trigger: 59400 },
    ]);
    const open = await adapter.openConditionals(a.account, 'BTCUSDT');
    expect(open.map((o) => [o.type, o.clientAlgoId, o.status])).toEqual([
      ['TRAILING_STOP_MARKET', '', 'NEW'],
      ['TAKE_PROFIT_MARKET', '', 'NEW'],
      ['STOP_MARKET', '', 'NEW'],
    ]);
    expect(await statusOf(cancel('TAKE_PROFIT_MARKET'))).toBe('CANCELED');
    expect(await cancel('TAKE_PROFIT_MARKET')).toBeNull();
    expect(await statusOf(query('TAKE_PROFIT_MARKET'))).toBe('CANCELED');
    await expect(adapter.queryConditional(a.account, 'BTCUSDT', 'pp-1')).rejects.toThrow(/type is needed/);
    // A stop for a short on a long position has nothing to close.
    const wrongWay = { ...leg('STOP_MARKET', { triggerPrice: '61000' }), side: 'BUY' as const };
    expect(await codeOf(place(wrongWay))).toBe(-2022);
    double.setPrice('BTCUSDT', 58_900);
    expect(double.position(a.creds.apiKey, 'BTCUSDT')).toBe(0);
    expect(double.orders(a.creds.apiKey).at(-1)).toMatchObject({
      side: 'SELL',
      quantity: 0.01,
      reduceOnly: true,
    });
    const fired = await query('STOP_MARKET');
    expect(fired).toMatchObject({ status: 'FINISHED', actualOrderId: fired?.algoId, clientAlgoId: 'pp-1' });
    expect(await statusOf(query('TRAILING_STOP_MARKET'))).toBe('EXPIRED');
    expect(await adapter.openConditionals(a.account)).toEqual([]);
  });

  it('a trailing stop arms at its activation price and fires when the mark gives back the callback', async () => {
    const a = newAccount(double);
    const { adapter } = adapterOn(double, [a]);
    await adapter.placeMarketOrder(a.account, order(hex(20)));
    const trail = { quantity: '0.01', callbackRate: '1', activatePrice: '61000' };
    await adapter.placeConditional(a.account, leg('TRAILING_STOP_MARKET', trail));
    expect(double.restingLegs(a.creds.apiKey, 'BTCUSDT')).toEqual([{ kind: 'trail', trigger: null }]);
    double.setPrice('BTCUSDT', 61_500); // armed; 1 % of 61000 is 610 below the best mark
    expect(double.restingLegs(a.creds.apiKey, 'BTCUSDT')).toEqual([{ kind: 'trail', trigger: 60_890 }]);
    double.setPrice('BTCUSDT', 60_950);
    expect(double.position(a.creds.apiKey, 'BTCUSDT')).toBe(0.01);
    double.setPrice('BTCUSDT', 60_800);
    expect(double.position(a.creds.apiKey, 'BTCUSDT')).toBe(0);
    expect(await statusOf(adapter.queryConditional(a.account, 'BTCUSDT', 't', 'TRAILING_STOP_MARKET'))).toBe(
      'FINISHED',
    );
  });

  it('the private stream tells fills and positions, and comes back after a cut; own fills are told at once', async () => {
    const a = newAccount(double);
    const problems: string[] = [];
    const { adapter } = adapterOn(double, [a], {
      adapter: {
        stream: {
          url: double.streamUrl,
          backoffMs: 50,
          pingMs: 50,
          onProblem: (p) => problems.push(p.reason),
        },
      },
    });
    const events: ExchangeEvent[] = [];
    const saw = (pick: (e: ExchangeEvent) => boolean, what: string) => until(() => events.find(pick), what);
    adapter.subscribeAll((account, e) => account === a.account && events.push(e));
    await adapter.placeMarketOrder(a.account, order(hex(21)));
    expect(events.find((e) => e.e === 'ORDER_TRADE_UPDATE')).toMatchObject({ o: { c: hex(21), l: '0.01' } });
    const stop = adapter.watch(a.account);
    await until(() => adapter.streaming().includes(a.account), 'the stream connected');
    const auth = JSON.parse(double.streams.received[0] ?? '{}') as { op: string; args: unknown[] };
    expect(auth.op).toBe('auth');
    expect(auth.args).toHaveLength(3);
    await until(() => double.streams.received.includes('{"op":"ping"}'), 'a ping');
    double.trade(a.creds.apiKey, 'BTCUSDT', 'Sell', '0.004');
    await saw((e) => e.e === 'ORDER_TRADE_UPDATE' && e.o.l === '0.004', 'the fill by hand');
    await saw((e) => e.e === 'ACCOUNT_UPDATE' && e.a.P[0]?.pa === '0.006', 'the position');
    double.cutStreams();
    const back = () =>
      double.streamConnections(a.creds.apiKey) === 1 && adapter.streaming().includes(a.account);
    await until(() => problems.length > 0 && back(), 'reconnected');
    double.trade(a.creds.apiKey, 'BTCUSDT', 'Sell', '0.006');
    await saw((e) => e.e === 'ACCOUNT_UPDATE' && e.a.P[0]?.pa === '0', 'a push after the cut');
    stop();
    await until(() => double.streamConnections(a.creds.apiKey) === 0, 'the stream closed');
    await adapter.stopStreams();
  });

  it('30 orders at once with distinct ids are 30 orders, within the 10/s budget Bybit enforces', async () => {
    const a = newAccount(double, { balance: 100_000 });
    const { adapter } = adapterOn(double, [a]);
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => adapter.placeMarketOrder(a.account, order(hex(100 + i), '100'))),
    );
    expect(results.every((r) => r.status === 'FILLED')).toBe(true);
    expect(new Set(double.orders(a.creds.apiKey).map((o) => o.clientId)).size).toBe(30);
  });

  it('30 sends at once of one client id after an unknown outcome leave one order on Bybit', async () => {
    const a = newAccount(double, { balance: 100_000 });
    // 31 orders in all: the last waits 3.3 s for its slot in the account's budget.
    const { adapter } = adapterOn(double, [a], { client: { orderBudget: { maxWaitMs: 5_000 } } });
    double.failNextOrder('unknown-after-fill');
    const first = await refusal(adapter.placeMarketOrder(a.account, order(hex(200))));
    expect(first).toBeInstanceOf(OrderOutcomeUnknown);
    const again = await Promise.allSettled(
      Array.from({ length: 30 }, () => adapter.placeMarketOrder(a.account, order(hex(200)))),
    );
    expect(again.map((r) => (r.status === 'rejected' ? (r.reason as ExchangeError).code : r.status))).toEqual(
      Array.from({ length: 30 }, () => -4116),
    );
    expect(double.orders(a.creds.apiKey)).toHaveLength(1);
  });

  it('checks a key with /v5/user/query-api: trade, withdrawal, IP whitelist; a refusal throws, no answer is unverified', async () => {
    const { client } = adapterOn(double, []);
    const check = bybitKeyChecker({ live: client, demo: client });
    const good = newAccount(double);
    const plain = { permissions: ['read', 'futures'], warnings: [], canWithdraw: false };
    expect(await check('live', good.creds)).toEqual({ status: 'verified', ...plain });
    const risky = { apiKey: 'RiskyKey0001', secret: 'risky-secret' };
    double.addKey({ ...risky, canWithdraw: true, ipWhitelist: false });
    expect(await check('live', risky)).toEqual({
      status: 'verified',
      permissions: ['read', 'futures', 'withdraw'],
      warnings: ['withdrawals-enabled', 'no-ip-whitelist'],
      canWithdraw: true,
    });
    expect(await codeOf(check('live', { ...good.creds, secret: 'wrong' }))).toBe(10004);
    double.rateLimit(1);
    expect(await check('live', good.creds)).toMatchObject({ status: 'unverified', permissions: [] });
    double.gatewayError('GET /v5/user/query-api', 503);
    expect(await check('demo', good.creds)).toMatchObject({ status: 'unverified' });
  });
});
