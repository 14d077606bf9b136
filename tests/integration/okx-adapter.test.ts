import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  LONG_SHORT_TEXT,
  OKX_POSITION_MODE_REFUSED,
  okxKeyChecker,
} from '../../server/modules/exchanges/key-check-okx';
import { OkxClient } from '../../server/modules/exchanges/okx-client';
import type { ConditionalOrderRequest, ExchangeEvent } from '../../server/modules/trading/exchange';
import {
  CloseAllIncomplete,
  ExchangeError,
  OrderOutcomeUnknown,
  VenueAnswerUnreadable,
  VenueRateLimited,
} from '../../server/modules/trading/exchange-error';
import { startOkxDouble, type OkxDouble } from '../fixtures/okx-double';
import { adapterOn, newAccount, refusal, seen, until } from '../fixtures/okx-kit';

const order = (
  newClientOrderId: string,
  quoteAmount = '600',
  symbol = 'BTCUSDT',
  side: 'BUY' | 'SELL' = 'BUY',
) => ({ symbol, side, quoteAmount, newClientOrderId });
const hex = (n: number) => `sc-${n.toString(16).padStart(32, '0')}`;
const ORDER = 'POST /api/v5/trade/order';

let double: OkxDouble;
beforeEach(async () => {
  double = await startOkxDouble();
});
afterEach(async () => {
  await double.close();
});

describe('OKX swap adapter against the OKX double', () => {
  it('signs as OKX documents: wrong secret 50113, wrong passphrase 50105, unknown key 50111, a skewed clock caught up', async () => {
    const a = newAccount(double);
    const wrongSecret = adapterOn(double, [
      { ...a, creds: { ...a.creds, secret: 'not-the-secret' } },
    ]).adapter;
    expect(await refusal(wrongSecret.balance(a.account))).toMatchObject({
      code: 50113,
      msg: 'Invalid Sign.',
    });
    const wrongPass = adapterOn(double, [{ ...a, creds: { ...a.creds, passphrase: 'guess' } }]).adapter;
    expect(await refusal(wrongPass.balance(a.account))).toMatchObject({ code: 50105 });
    const stranger = adapterOn(double, [{ ...a, creds: { ...a.creds, apiKey: 'no-such-key' } }]).adapter;
    expect(await refusal(stranger.balance(a.account))).toMatchObject({ code: 50111 });
    const { adapter, client } = adapterOn(double, [a]);
    await client.syncTime();
    const synced = seen(double, 'GET /api/v5/public/time').length;
    double.clockSkewMs = 45_000; // OKX's clock moved on: the first try is 50102, the resync fixes it
    expect(await adapter.balance(a.account)).toMatchObject({
      balance: '1000.00000000',
      availableBalance: '1000.00000000',
    });
    expect(seen(double, 'GET /api/v5/public/time')).toHaveLength(synced + 1);
    // Neither secret travels: only the signature does (the passphrase only in its header).
    expect(
      double.requests().some((r) => r.includes(a.creds.secret) || r.includes(a.creds.passphrase ?? '?')),
    ).toBe(false);
  });

  it('a demo key needs x-simulated-trading: without it OKX answers 50101, with it the key trades', async () => {
    const demo = newAccount(double, { demo: true });
    const plain = adapterOn(double, [demo]).adapter;
    expect(await refusal(plain.balance(demo.account))).toMatchObject({
      code: 50101,
      msg: 'APIKey does not match current environment.',
    });
    const live = newAccount(double);
    const simulated = adapterOn(double, [demo, live], { client: { simulated: true } }).adapter;
    expect((await simulated.placeMarketOrder(demo.account, order(hex(1)))).status).toBe('FILLED');
    expect(seen(double, ORDER)).toHaveLength(1);
    // A live key sent to demo trading is refused the other way round.
    expect(await refusal(simulated.balance(live.account))).toMatchObject({ code: 50101 });
  });

  it("sizes in coins on the swap's contracts (ctVal, lotSz, minSz) and sends contracts; a minimum not met is refused unsent", async () => {
    const a = newAccount(double, { balance: 10_000 });
    const { adapter } = adapterOn(double, [a]);
    const btc = await adapter.filters('BTCUSDT');
    expect([btc.stepSize, btc.minQty, btc.minNotional, btc.maxQty].map((d) => d.toFixed())).toEqual([
      '0.0001', // 0.01 contracts of 0.01 BTC
      '0.0001',
      '6', // 0.01 contracts at 60000
      '120',
    ]);
    expect((await adapter.filters('DOGEUSDT')).stepSize.toFixed()).toBe('1000');
    const placed = await adapter.placeMarketOrder(a.account, order(hex(2), '100')); // 100 / 60000 → 0.0017 BTC
    expect(placed).toMatchObject({
      status: 'FILLED',
      executedQty: '0.0017',
      avgPrice: '60000',
      origQty: '0.0017',
    });
    expect(placed.commission).toBe('0.051'); // 0.0017 × 60000 × 0.05 %
    expect(placed.venueTimes?.inTime).toMatch(/^\d{16}$/);
    expect(seen(double, ORDER)[0]).toContain('"sz":"0.17"');
    await adapter.placeMarketOrder(a.account, order(hex(3), '50', 'ETHUSDT')); // 0.017 ETH = 0.17 contracts
    await adapter.placeMarketOrder(a.account, order(hex(4), '250', 'DOGEUSDT', 'SELL')); // 2500 → 3000 DOGE
    expect(double.orders(a.creds.apiKey).map((o) => [o.symbol, o.side, o.quantity])).toEqual([
      ['BTCUSDT', 'BUY', 0.0017],
      ['ETHUSDT', 'BUY', 0.017],
      ['DOGEUSDT', 'SELL', 3000],
    ]);
    expect(seen(double, ORDER).map((r) => /"sz":"([^"]+)"/.exec(r)?.[1])).toEqual(['0.17', '0.17', '3']);
    const before = seen(double, ORDER).length;
    expect(await refusal(adapter.placeMarketOrder(a.account, order(hex(5), '3')))).toMatchObject({
      code: -4164,
    });
    expect(await refusal(adapter.placeMarketOrder(a.account, order(hex(6), '50', 'DOGEUSDT')))).toMatchObject(
      {
        code: -4164,
      },
    );
    expect(seen(double, ORDER)).toHaveLength(before);
  });

  it('refuses a symbol OKX does not list (1000PEPE) before anything is sent, and once the swaps are known, before any request', async () => {
    const a = newAccount(double);
    const { adapter } = adapterOn(double, [a]);
    const err = await refusal(adapter.placeMarketOrder(a.account, order(hex(7), '100', '1000PEPEUSDT')));
    expect(err).toBeInstanceOf(ExchangeError);
    expect(err).toMatchObject({ code: -1121, msg: 'OKX does not list 1000PEPE/USDT.' });
    expect(seen(double, ORDER)).toHaveLength(0);
    const count = double.requests().length;
    expect(await refusal(adapter.setLeverage(a.account, '1000PEPEUSDT', 5))).toMatchObject({ code: -1121 });
    expect(await refusal(adapter.queryOrder(a.account, 'x', 'FOOUSDT'))).toMatchObject({ code: -1121 });
    expect(double.requests()).toHaveLength(count);
  });

  it("maps the app's client ids to 32 alphanumerics deterministically and reads them back", async () => {
    const a = newAccount(double);
    const { adapter } = adapterOn(double, [a]);
    await adapter.placeMarketOrder(a.account, order('pp-12-sl-1'));
    await adapter.placeMarketOrder(a.account, order(hex(8)));
    const odd = await adapter.placeMarketOrder(a.account, order('rule:7/close.1'));
    const ids = double.orders(a.creds.apiKey).map((o) => o.clientId);
    expect(ids[0]).toBe('LppX12XslX1');
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9]{1,32}$/);
    expect(new Set(ids).size).toBe(3);
    expect(odd.clientOrderId).toBe('rule:7/close.1');
    expect(await adapter.queryOrder(a.account, 'rule:7/close.1', 'BTCUSDT')).toMatchObject({
      status: 'FILLED',
      clientOrderId: 'rule:7/close.1',
    });
    expect(await adapter.queryOrder(a.account, hex(8), 'BTCUSDT')).toMatchObject({ executedQty: '0.01' });
    expect(await adapter.queryOrder(a.account, 'never-sent', 'BTCUSDT')).toBeNull();
    // OKX would take a filled order's clOrdId again: the adapter looks it up first and says -4116.
    expect(await refusal(adapter.placeMarketOrder(a.account, order('rule:7/close.1')))).toMatchObject({
      code: -4116,
    });
    expect(double.orders(a.creds.apiKey)).toHaveLength(3);
  });

  it('an order filled behind a 50004, a time-out, a 502 or an unreadable answer is unknown, then found by its client id', async () => {
    const a = newAccount(double);
    const { adapter } = adapterOn(double, [a], { client: { timeoutMs: 300 } });
    double.failNextOrder('unknown-after-fill');
    const unknown = await refusal(adapter.placeMarketOrder(a.account, order(hex(9))));
    expect(unknown).toBeInstanceOf(OrderOutcomeUnknown);
    expect(await adapter.queryOrder(a.account, hex(9), 'BTCUSDT')).toMatchObject({
      status: 'FILLED',
      executedQty: '0.01',
      commission: '0.3',
      realizedPnl: '0',
    });
    expect(double.orders(a.creds.apiKey)).toHaveLength(1);
    double.failNextOrder('timeout');
    expect(await refusal(adapter.placeMarketOrder(a.account, order(hex(10))))).toBeInstanceOf(
      OrderOutcomeUnknown,
    );
    expect(await adapter.queryOrder(a.account, hex(10), 'BTCUSDT')).toMatchObject({ status: 'FILLED' });
    double.gatewayError(ORDER, 502);
    expect(await refusal(adapter.placeMarketOrder(a.account, order(hex(11))))).toBeInstanceOf(
      OrderOutcomeUnknown,
    );
    double.reshapeNext(ORDER, (b) => ({ ...b, data: [{ ordId: 7, sCode: '0' }] }));
    expect(await refusal(adapter.placeMarketOrder(a.account, order(hex(12))))).toBeInstanceOf(
      OrderOutcomeUnknown,
    );
    expect(await adapter.queryOrder(a.account, hex(12), 'BTCUSDT')).toMatchObject({ status: 'FILLED' });
  });

  it("a refusal inside HTTP 200 keeps OKX's sCode and sMsg; a duplicate is -4116 in OKX's words", async () => {
    const a = newAccount(double);
    const { adapter } = adapterOn(double, [a]);
    double.failNextOrder('refused');
    const margin = await refusal(adapter.placeMarketOrder(a.account, order(hex(13))));
    expect(margin).toBeInstanceOf(ExchangeError);
    expect(margin).toMatchObject({ code: 51008, msg: 'Order failed. Insufficient USDT margin in account' });
    expect(await refusal(adapter.placeMarketOrder(a.account, order(hex(14), '50000')))).toMatchObject({
      code: 51008,
    });
    double.refuseNextOrder({ code: '51169', msg: 'no position' });
    expect(await refusal(adapter.placeMarketOrder(a.account, order(hex(15))))).toMatchObject({ code: 51169 });
    double.failNextOrder('duplicate');
    expect(await refusal(adapter.placeMarketOrder(a.account, order(hex(16))))).toMatchObject({
      code: -4116,
      msg: 'Duplicated clOrdId',
    });
    expect(double.orders(a.creds.apiKey)).toHaveLength(1);
  });

  it('50011 / HTTP 429 is VenueRateLimited naming OKX; the held endpoint is not asked again until it lifts', async () => {
    const a = newAccount(double);
    const { adapter } = adapterOn(double, [a]);
    await adapter.balance(a.account);
    double.rateLimit(1);
    const limited = await refusal(adapter.positionRisk(a.account, true));
    expect(limited).toBeInstanceOf(VenueRateLimited);
    expect(limited).toMatchObject({ code: 50011, venue: 'OKX', status: 429, retryAfterSeconds: 2 });
    const asked = seen(double, 'GET /api/v5/account/positions').length;
    expect(await refusal(adapter.positionRisk(a.account, true))).toBeInstanceOf(VenueRateLimited);
    expect(seen(double, 'GET /api/v5/account/positions')).toHaveLength(asked);
    expect((await adapter.balance(a.account)).asset).toBe('USDT'); // another endpoint is not held
    await new Promise((r) => setTimeout(r, 2_050));
    expect(await adapter.positionRisk(a.account, true)).toEqual([]);
  });

  it('an answer in an unexpected shape is VenueAnswerUnreadable naming OKX and the field', async () => {
    const a = newAccount(double);
    const { adapter } = adapterOn(double, [a]);
    await adapter.placeMarketOrder(a.account, order(hex(17)));
    double.reshapeNext('GET /api/v5/account/positions', (b) => ({
      ...b,
      data: (b.data as Record<string, unknown>[]).map(({ pos: _p, ...rest }) => rest),
    }));
    const err = await refusal(adapter.positionRisk(a.account, true));
    expect(err).toBeInstanceOf(VenueAnswerUnreadable);
    expect((err as VenueAnswerUnreadable).detail).toBe(
      'OKX sent an answer we could not read for the positions (pos missing). Nothing was changed.',
    );
    double.reshapeNext('GET /api/v5/account/balance', () => ({ nothing: true }));
    expect(await refusal(adapter.balance(a.account))).toBeInstanceOf(VenueAnswerUnreadable);
  });

  it('positions are net and signed in coins; reduce, close and close-all send reduce-only market orders', async () => {
    const a = newAccount(double, { balance: 10_000 });
    const { adapter } = adapterOn(double, [a]);
    await adapter.placeMarketOrder(a.account, order(hex(18), '1200')); // 0.02 BTC long: 2 contracts
    await adapter.placeMarketOrder(a.account, order(hex(19), '300', 'ETHUSDT', 'SELL')); // 0.1 ETH short
    double.setPrice('BTCUSDT', 61_000);
    const rows = await adapter.positionRisk(a.account, true);
    expect(
      rows.map((p) => [p.symbol, p.positionAmt, p.entryPrice, p.unRealizedProfit, p.marginType]),
    ).toEqual([
      ['BTCUSDT', '0.02', '60000', '20.00000000', 'cross'],
      ['ETHUSDT', '-0.1', '3000', '0.00000000', 'cross'],
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
    expect(seen(double, ORDER).at(-1)).toContain('"sz":"1.5"');
    const closed = await adapter.closePosition(a.account, 'BTCUSDT', 'c-1');
    expect(closed).toMatchObject({ executedQty: '0.005', realizedPnl: '5', commission: '0.1525' });
    expect(await adapter.closePosition(a.account, 'BTCUSDT', 'c-2')).toBeNull();
    await adapter.placeMarketOrder(a.account, order(hex(20), '300', 'SOLUSDT'));
    const all = await adapter.closeAllPositions(a.account, 'ca-1');
    expect(all.map((r) => [r.symbol, r.side, r.executedQty])).toEqual([
      ['ETHUSDT', 'BUY', '0.1'],
      ['SOLUSDT', 'SELL', '2'],
    ]);
    expect(double.position(a.creds.apiKey, 'ETHUSDT')).toBe(0);
    expect(await adapter.positionRisk(a.account, true)).toEqual([]);
    expect(Number((await adapter.balance(a.account)).balance)).toBeLessThan(10_020);
    expect(await adapter.setLeverage(a.account, 'BTCUSDT', 25)).toEqual({ symbol: 'BTCUSDT', leverage: 25 });
    expect(seen(double, 'POST /api/v5/account/set-leverage').at(-1)).toContain('"mgnMode":"cross"');
    const count = double.requests().length;
    expect(await refusal(adapter.setLeverage(a.account, 'BTCUSDT', 101))).toMatchObject({ code: -4028 });
    expect(double.requests()).toHaveLength(count);
  });

  it('a close-all with one close unknown closes the rest and says which is unknown', async () => {
    const a = newAccount(double, { balance: 10_000 });
    const { adapter } = adapterOn(double, [a]);
    await adapter.placeMarketOrder(a.account, order(hex(21), '600'));
    await adapter.placeMarketOrder(a.account, order(hex(22), '300', 'ETHUSDT'));
    double.failNextOrder('unknown-after-fill');
    const err = await refusal(adapter.closeAllPositions(a.account, 'ca-2'));
    expect(err).toBeInstanceOf(CloseAllIncomplete);
    expect((err as CloseAllIncomplete).unknown.map((u) => u.clientOrderId)).toEqual(['ca-2-0']);
    expect((err as CloseAllIncomplete).fills.map((f) => f.symbol)).toEqual(['ETHUSDT']);
  });

  it('rests stop, target and trailing stop as OKX algo orders; finds, cancels and fires them on the mark', async () => {
    const a = newAccount(double);
    const { adapter } = adapterOn(double, [a]);
    await adapter.placeMarketOrder(a.account, order(hex(23))); // 0.01 BTC long
    const leg = (type: ConditionalOrderRequest['type'], extra: Partial<ConditionalOrderRequest>) => ({
      symbol: 'BTCUSDT',
      side: 'SELL' as const,
      type,
      clientAlgoId: `pp-1-${type === 'STOP_MARKET' ? 'sl' : type === 'TAKE_PROFIT_MARKET' ? 'tp' : 'trail'}-1`,
      ...extra,
    });
    const sl = await adapter.placeConditional(
      a.account,
      leg('STOP_MARKET', { triggerPrice: '59000', closePosition: true }),
    );
    expect(sl).toMatchObject({
      status: 'NEW',
      triggerPrice: '59000',
      clientAlgoId: 'pp-1-sl-1',
      closePosition: true,
    });
    expect(seen(double, 'POST /api/v5/trade/order-algo')[0]).toContain(
      '"ordType":"conditional","closeFraction":"1","slTriggerPx":"59000","slOrdPx":"-1","slTriggerPxType":"mark"',
    );
    // The same leg again is the one resting: nothing new is placed.
    expect(
      (await adapter.placeConditional(a.account, leg('STOP_MARKET', { triggerPrice: '59000' }))).algoId,
    ).toBe(sl.algoId);
    await adapter.placeConditional(
      a.account,
      leg('TAKE_PROFIT_MARKET', { triggerPrice: '62000', closePosition: true }),
    );
    const trail = await adapter.placeConditional(
      a.account,
      leg('TRAILING_STOP_MARKET', { quantity: '0.01', callbackRate: '1' }),
    );
    expect(trail).toMatchObject({ quantity: '0.01', callbackRate: '1', closePosition: false });
    expect(seen(double, 'POST /api/v5/trade/order-algo').at(-1)).toContain('"sz":"1","callbackRatio":"0.01"');
    expect(seen(double, 'POST /api/v5/trade/order-algo')).toHaveLength(3);
    expect(double.restingLegs(a.creds.apiKey, 'BTCUSDT')).toEqual([
      { kind: 'sl', trigger: 59000 },
      { kind: 'tp', trigger: 62000 },
      { kind: 'trail', trigger: 59400 },
    ]);
    const open = await adapter.openConditionals(a.account, 'BTCUSDT');
    expect(open.map((o) => [o.type, o.clientAlgoId, o.status]).sort()).toEqual([
      ['STOP_MARKET', 'pp-1-sl-1', 'NEW'],
      ['TAKE_PROFIT_MARKET', 'pp-1-tp-1', 'NEW'],
      ['TRAILING_STOP_MARKET', 'pp-1-trail-1', 'NEW'],
    ]);
    expect(await adapter.cancelConditional(a.account, 'BTCUSDT', 'pp-1-tp-1')).toMatchObject({
      status: 'CANCELED',
    });
    expect(await adapter.cancelConditional(a.account, 'BTCUSDT', 'pp-1-tp-1')).toBeNull();
    expect(await adapter.queryConditional(a.account, 'BTCUSDT', 'pp-1-tp-1')).toMatchObject({
      status: 'CANCELED',
    });
    expect(await adapter.queryConditional(a.account, 'BTCUSDT', 'pp-9-sl-1')).toBeNull();
    // A stop for a short on a long has nothing to close; a stop above the mark would fire at once.
    expect(
      await refusal(
        adapter.placeConditional(a.account, {
          ...leg('STOP_MARKET', { triggerPrice: '61000' }),
          side: 'BUY',
          clientAlgoId: 'pp-1-sl-2',
        }),
      ),
    ).toMatchObject({ code: -2022 });
    expect(
      await refusal(
        adapter.placeConditional(a.account, {
          ...leg('STOP_MARKET', { triggerPrice: '61000' }),
          clientAlgoId: 'pp-1-sl-3',
        }),
      ),
    ).toMatchObject({ code: 51280 });
    double.setPrice('BTCUSDT', 58_900);
    expect(double.position(a.creds.apiKey, 'BTCUSDT')).toBe(0);
    const close = double.orders(a.creds.apiKey).at(-1);
    expect(close).toMatchObject({ side: 'SELL', quantity: 0.01, reduceOnly: true });
    const fired = await adapter.queryConditional(a.account, 'BTCUSDT', 'pp-1-sl-1');
    expect(fired).toMatchObject({ status: 'FINISHED', clientAlgoId: 'pp-1-sl-1' });
    expect(fired?.actualOrderId).toMatch(/^\d+$/);
    // The flat position's other legs are cancelled by OKX.
    expect(await adapter.queryConditional(a.account, 'BTCUSDT', 'pp-1-trail-1')).toMatchObject({
      status: 'CANCELED',
    });
    expect(await adapter.openConditionals(a.account)).toEqual([]);
  });

  it('a trailing stop arms at its activation price and fires when the mark gives back the callback', async () => {
    const a = newAccount(double);
    const { adapter } = adapterOn(double, [a]);
    await adapter.placeMarketOrder(a.account, order(hex(24)));
    await adapter.placeConditional(a.account, {
      symbol: 'BTCUSDT',
      side: 'SELL',
      type: 'TRAILING_STOP_MARKET',
      quantity: '0.01',
      callbackRate: '1',
      activatePrice: '61000',
      clientAlgoId: 'pp-2-trail-1',
    });
    expect(double.restingLegs(a.creds.apiKey, 'BTCUSDT')).toEqual([{ kind: 'trail', trigger: null }]);
    double.setPrice('BTCUSDT', 61_500); // armed; 1 % below the best mark
    expect(double.restingLegs(a.creds.apiKey, 'BTCUSDT')).toEqual([{ kind: 'trail', trigger: 60_885 }]);
    double.setPrice('BTCUSDT', 60_950);
    expect(double.position(a.creds.apiKey, 'BTCUSDT')).toBe(0.01);
    double.setPrice('BTCUSDT', 60_800);
    expect(double.position(a.creds.apiKey, 'BTCUSDT')).toBe(0);
    expect(await adapter.queryConditional(a.account, 'BTCUSDT', 'pp-2-trail-1')).toMatchObject({
      status: 'FINISHED',
      activatePrice: '61000',
    });
  });

  it('the private streams tell fills, positions and legs, and come back after a cut; own fills are told at once', async () => {
    const a = newAccount(double);
    const problems: string[] = [];
    const { adapter } = adapterOn(double, [a], {
      adapter: {
        stream: {
          url: double.streamUrl,
          businessUrl: double.settings.OKX_BUSINESS_STREAM_URL,
          backoffMs: 50,
          onProblem: (p) => problems.push(p.reason),
        },
      },
    });
    const events: ExchangeEvent[] = [];
    adapter.subscribeAll((account, e) => account === a.account && events.push(e));
    await adapter.placeMarketOrder(a.account, order(hex(25)));
    expect(events.find((e) => e.e === 'ORDER_TRADE_UPDATE')).toMatchObject({ o: { c: hex(25), l: '0.01' } });
    const stop = adapter.watch(a.account);
    await until(() => adapter.streaming().includes(a.account), 'the streams connected');
    const login = JSON.parse(double.streams.received[0] ?? '{}') as {
      op: string;
      args: Record<string, string>[];
    };
    expect(login.op).toBe('login');
    expect(login.args[0]).toMatchObject({ apiKey: a.creds.apiKey, passphrase: a.creds.passphrase });
    expect(login.args[0]?.timestamp).toMatch(/^\d{10}$/);
    double.trade(a.creds.apiKey, 'BTCUSDT', 'sell', '0.4');
    await until(
      () => events.find((e) => e.e === 'ORDER_TRADE_UPDATE' && e.o.l === '0.004'),
      'the fill by hand',
    );
    await until(
      () => events.find((e) => e.e === 'ACCOUNT_UPDATE' && e.a.P[0]?.pa === '0.006'),
      'the position',
    );
    await adapter.placeConditional(a.account, {
      symbol: 'BTCUSDT',
      side: 'SELL',
      type: 'STOP_MARKET',
      triggerPrice: '55000',
      closePosition: true,
      clientAlgoId: 'pp-3-sl-1',
    });
    await until(
      () =>
        events.find(
          (e) => e.e === 'ALGO_UPDATE' && e.order.clientAlgoId === 'pp-3-sl-1' && e.order.status === 'NEW',
        ),
      'the leg on the business stream',
    );
    double.cutStreams();
    await until(
      () =>
        problems.length > 0 &&
        double.streamConnections(a.creds.apiKey) === 2 &&
        adapter.streaming().includes(a.account),
      'reconnected',
    );
    double.trade(a.creds.apiKey, 'BTCUSDT', 'sell', '0.6');
    await until(
      () => events.find((e) => e.e === 'ACCOUNT_UPDATE' && e.a.P[0]?.pa === '0'),
      'a push after the cut',
    );
    await until(
      () =>
        events.find(
          (e) =>
            e.e === 'ALGO_UPDATE' && e.order.clientAlgoId === 'pp-3-sl-1' && e.order.status === 'CANCELED',
        ),
      'the leg ended with its position',
    );
    stop();
    await until(() => double.streamConnections(a.creds.apiKey) === 0, 'the streams closed');
    await adapter.stopStreams();
  });

  it('30 orders at once with distinct ids are 30 orders', async () => {
    const a = newAccount(double, { balance: 100_000 });
    const { adapter } = adapterOn(double, [a]);
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => adapter.placeMarketOrder(a.account, order(hex(100 + i), '100'))),
    );
    expect(results.every((r) => r.status === 'FILLED')).toBe(true);
    expect(new Set(double.orders(a.creds.apiKey).map((o) => o.clientId)).size).toBe(30);
  });

  it('30 sends at once of one client id after an unknown outcome leave one order on OKX', async () => {
    const a = newAccount(double, { balance: 100_000 });
    const { adapter } = adapterOn(double, [a]);
    double.failNextOrder('unknown-after-fill');
    expect(await refusal(adapter.placeMarketOrder(a.account, order(hex(200))))).toBeInstanceOf(
      OrderOutcomeUnknown,
    );
    const again = await Promise.allSettled(
      Array.from({ length: 30 }, () => adapter.placeMarketOrder(a.account, order(hex(200)))),
    );
    expect(again.every((r) => r.status === 'rejected' && (r.reason as ExchangeError).code === -4116)).toBe(
      true,
    );
    expect(double.orders(a.creds.apiKey)).toHaveLength(1);
  });

  it('30 sends at once of one new client id leave one order: one goes out, the others find it', async () => {
    const a = newAccount(double, { balance: 100_000 });
    const { adapter } = adapterOn(double, [a]);
    const sends = await Promise.allSettled(
      Array.from({ length: 30 }, () => adapter.placeMarketOrder(a.account, order(hex(300)))),
    );
    expect(sends.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(
      sends.filter((r) => r.status === 'rejected' && (r.reason as ExchangeError).code === -4116),
    ).toHaveLength(29);
    expect(double.orders(a.creds.apiKey)).toHaveLength(1);
  });

  it('30 places at once of one leg rest one algo order', async () => {
    const a = newAccount(double);
    const { adapter } = adapterOn(double, [a]);
    await adapter.placeMarketOrder(a.account, order(hex(301)));
    const legs = await Promise.all(
      Array.from({ length: 30 }, () =>
        adapter.placeConditional(a.account, {
          symbol: 'BTCUSDT',
          side: 'SELL',
          type: 'STOP_MARKET',
          triggerPrice: '58000',
          closePosition: true,
          clientAlgoId: 'pp-4-sl-1',
        }),
      ),
    );
    expect(new Set(legs.map((l) => l.algoId)).size).toBe(1);
    expect(double.restingLegs(a.creds.apiKey, 'BTCUSDT')).toHaveLength(1);
  });

  it('the order budget queues orders beyond 60 in 2 s per instrument instead of letting OKX refuse them', async () => {
    const a = newAccount(double, { balance: 1_000_000 });
    const client = new OkxClient({
      baseUrl: double.url,
      orderBudget: { perWindow: 5, windowMs: 300, maxWaitMs: 1_000 },
    });
    const { adapter } = adapterOn(double, [a], { adapter: { client } });
    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => adapter.placeMarketOrder(a.account, order(hex(400 + i), '100'))),
    );
    expect(results.every((r) => r.status === 'FILLED')).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    const tight = new OkxClient({
      baseUrl: double.url,
      orderBudget: { perWindow: 1, windowMs: 5_000, maxWaitMs: 100 },
    });
    const second = adapterOn(double, [a], { adapter: { client: tight } }).adapter;
    await second.placeMarketOrder(a.account, order(hex(500), '100'));
    const sent = seen(double, ORDER).length;
    expect(await refusal(second.placeMarketOrder(a.account, order(hex(501), '100')))).toMatchObject({
      code: 50011,
      venue: 'OKX',
    });
    expect(seen(double, ORDER)).toHaveLength(sent);
  });

  it('checks a key with /account/config: trade, withdrawal, IP whitelist, net mode; a refusal throws, no answer is unverified', async () => {
    const check = okxKeyChecker({
      live: new OkxClient({ baseUrl: double.url, timeoutMs: 1_000 }),
      demo: new OkxClient({ baseUrl: double.url, timeoutMs: 1_000, simulated: true }),
    });
    const good = newAccount(double);
    expect(await check('live', good.creds)).toEqual({
      status: 'verified',
      permissions: ['read', 'futures'],
      warnings: [],
      canWithdraw: false,
    });
    const risky = newAccount(double, { canWithdraw: true, ipWhitelist: false });
    expect(await check('live', risky.creds)).toEqual({
      status: 'verified',
      permissions: ['read', 'futures', 'withdraw'],
      warnings: ['withdrawals-enabled', 'no-ip-whitelist'],
      canWithdraw: true,
    });
    const reader = newAccount(double, { readOnly: true });
    expect((await check('live', reader.creds)).permissions).toEqual(['read']);
    const hedged = newAccount(double, { posMode: 'long_short_mode' });
    expect(await refusal(check('live', hedged.creds))).toMatchObject({
      code: OKX_POSITION_MODE_REFUSED,
      msg: LONG_SHORT_TEXT,
    });
    expect(LONG_SHORT_TEXT).toContain('net (one-way) mode');
    expect(await refusal(check('live', newAccount(double, { acctLv: '1' }).creds))).toMatchObject({
      code: 51010,
    });
    const demo = newAccount(double, { demo: true });
    expect((await check('demo', demo.creds)).status).toBe('verified');
    expect(await refusal(check('live', demo.creds))).toMatchObject({ code: 50101 });
    expect(await refusal(check('live', { ...good.creds, passphrase: 'nope' }))).toMatchObject({
      code: 50105,
    });
    expect(await refusal(check('live', { ...good.creds, secret: 'wrong' }))).toMatchObject({ code: 50113 });
    double.rateLimit(1);
    expect(await check('live', good.creds)).toMatchObject({ status: 'unverified', permissions: [] });
    double.gatewayError('GET /api/v5/account/config', 503);
    expect(await check('live', good.creds)).toMatchObject({ status: 'unverified' });
  });
});
