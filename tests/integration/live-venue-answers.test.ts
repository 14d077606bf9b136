import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExchangeKey } from '../../src/contracts/exchanges';
import {
  CloseAllResponse,
  CloseResponse,
  OrderResponse,
  Position,
  TradesPage,
} from '../../src/contracts/trading';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';
import {
  BINANCE_ERRORS,
  startSignedDouble,
  without,
  type SignedDouble,
} from '../fixtures/binance-signed-double';

const KEY = { apiKey: 'AnswersKey0123456789abcdef', secret: 'answers-secret-0123456789ab' };
const OTHER_KEY = { apiKey: 'OtherKey0123456789abcdefgh', secret: 'other-secret-0123456789abcd' };
const SETTLE_MS = 400;

type Auth = { authorization: string };

/** Polls `read` until it gives something (loopback I/O and the server's own timers only). */
async function until<T>(read: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * What the live account answers when Binance's answers are not what it documents or do not say what
 * happened: a clear 502 naming Binance for a read, an unknown outcome looked up for an order or a
 * close, a fee that is unknown rather than 0.
 */
describe.each(dbTargets())('live account: answers Binance did not make clear, on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let binance: SignedDouble;
  let ann: Auth;

  beforeAll(async () => {
    binance = await startSignedDouble();
    binance.keys.set(KEY.apiKey, { ...KEY, ipRestrict: true });
    binance.keys.set(OTHER_KEY.apiKey, { ...OTHER_KEY, ipRestrict: true });
    t = await startTestApp(target, {
      MARKET_SOURCE: 'sim',
      BINANCE_FAPI_URL: binance.url,
      BINANCE_API_URL: binance.url,
      BINANCE_DEMO_FAPI_URL: 'http://127.0.0.1:9',
      BINANCE_TIMEOUT_MS: '500',
      BINANCE_ORDER_SETTLE_MS: String(SETTLE_MS),
    });
    ann = await signUpAndLogIn(t.app, 'ann');
    const saved = await t.app.inject({
      method: 'POST',
      url: '/api/exchanges/',
      headers: ann,
      payload: { exchangeName: 'binance', apiKey: KEY.apiKey, secretKey: KEY.secret },
    });
    const keyId = ExchangeKey.parse(saved.json()).id;
    const chosen = await t.app.inject({
      method: 'PUT',
      url: '/api/account',
      headers: ann,
      payload: { account: keyId },
    });
    expect(chosen.statusCode, chosen.body).toBe(200);
  });
  afterAll(async () => {
    await t.close();
    await binance.close();
  });

  const order = (amount: number, key = randomUUID(), symbol = 'BTC/USDT') =>
    t.app.inject({
      method: 'POST',
      url: '/api/orders',
      headers: { ...ann, 'idempotency-key': key },
      payload: { symbol, side: 'long', type: 'market', amount },
    });
  const close = (symbol: string) =>
    t.app.inject({ method: 'POST', url: '/api/close_position', headers: ann, payload: { symbol } });
  const closeAll = () =>
    t.app.inject({ method: 'POST', url: '/api/close_all_positions', headers: ann, payload: {} });
  const placed = () => binance.orders.length;
  const calls = (route: string) => binance.requests.filter((r) => r.startsWith(route)).length;
  const tradeOf = async (orderId: string) => {
    const res = await t.app.inject({ url: '/api/trades', headers: ann });
    return TradesPage.parse(res.json()).trades.find((tr) => tr.orderId === orderId);
  };

  it('a positions answer without initialMargin is a 502 naming Binance, never a 500; fields it can do without are not needed', async () => {
    // Opened on Binance's own site: nothing of the app's has read this account yet.
    binance.trade(KEY.apiKey, 'BTCUSDT', 'BUY', '0.004');
    binance.fault({ route: 'GET /fapi/v3/positionRisk', reshape: without('initialMargin') });
    const res = await t.app.inject({ url: '/api/positions', headers: ann });
    expect(res.statusCode, res.body).toBe(502);
    expect(res.json()).toEqual({
      detail:
        'Binance sent an answer we could not read for the positions (initialMargin missing). Nothing was changed.',
    });
    binance.fault({
      route: 'GET /fapi/v3/positionRisk',
      reshape: without('breakEvenPrice', 'maintMargin', 'updateTime', 'positionSide'),
    });
    const read = await t.app.inject({ url: '/api/positions', headers: ann });
    expect(read.statusCode, read.body).toBe(200);
    expect((read.json() as unknown[]).map((p) => Position.parse(p))).toEqual([
      expect.objectContaining({ symbol: 'BTC/USDT', size: 0.004, leverage: 20 }),
    ]);
  });

  it('a balance answer without availableBalance is a 502 naming Binance', async () => {
    binance.fault({ route: 'GET /fapi/v3/balance', reshape: without('availableBalance') });
    const res = await t.app.inject({ url: '/api/account/balance', headers: ann });
    expect(res.statusCode, res.body).toBe(502);
    expect(res.json()).toEqual({
      detail:
        'Binance sent an answer we could not read for the balance (availableBalance missing). Nothing was changed.',
    });
  });

  it('a key check whose account answer lacks canWithdraw is a 502, and the key is not saved', async () => {
    binance.fault({ route: 'GET /fapi/v2/account', reshape: without('canWithdraw') });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/exchanges/',
      headers: ann,
      payload: { exchangeName: 'binance', apiKey: OTHER_KEY.apiKey, secretKey: OTHER_KEY.secret },
    });
    expect(res.statusCode, res.body).toBe(502);
    expect(res.json()).toEqual({
      detail:
        'Binance sent an answer we could not read for the futures account (canWithdraw missing). Nothing was changed.',
    });
    const keys = await t.app.inject({ url: '/api/exchanges/', headers: ann });
    expect((keys.json() as { keyHint: string }[]).map((k) => k.keyHint)).toEqual(['Answ…cdef']);
  });

  it('an order answer missing executedQty and avgPrice is an unknown outcome: looked up by client id, one order', async () => {
    binance.fault({ route: 'POST /fapi/v1/order', reshape: without('executedQty', 'avgPrice') });
    const count = placed();
    const lookups = calls('GET /fapi/v1/order?');
    const key = randomUUID();
    const res = await order(250, key);
    expect(res.statusCode, res.body).toBe(200);
    const fill = OrderResponse.parse(res.json());
    expect(fill).toMatchObject({ status: 'filled', quantity: 0.004, price: 60_000 });
    expect(fill.id).toBe(String(binance.orders.at(-1)?.orderId));
    expect(calls('GET /fapi/v1/order?')).toBeGreaterThan(lookups);
    expect(placed()).toBe(count + 1);
    const again = await order(250, key);
    expect(OrderResponse.parse(again.json()).id).toBe(fill.id);
    expect(placed()).toBe(count + 1);
  });

  it('an order whose answer and look-ups cannot be read is "outcome unknown" (503), and a retry finds it, never sends twice', async () => {
    binance.fault({ route: 'POST /fapi/v1/order', reshape: without('status') });
    binance.fault({ route: 'GET /fapi/v1/order', reshape: without('status'), count: 2 });
    const count = placed();
    const key = randomUUID();
    const res = await order(250, key);
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json()).toMatchObject({ code: 'outcome_unknown' });
    expect(res.json<{ detail: string }>().detail).toContain(
      'Binance sent an answer we could not read (the order: status missing)',
    );
    expect(placed()).toBe(count + 1);
    const again = await order(250, key);
    expect(again.statusCode, again.body).toBe(200);
    expect(OrderResponse.parse(again.json()).id).toBe(String(binance.orders.at(-1)?.orderId));
    expect(placed()).toBe(count + 1);
  });

  it('when the order’s trades cannot be read, its fee and realised PnL are unknown (null, not 0) until a later look-up tells them', async () => {
    // The order's own look-up, the answer's second ask and the first later ask all fail.
    binance.fault({ route: 'GET /fapi/v1/userTrades', error: BINANCE_ERRORS.internal, count: 3 });
    const res = await order(250);
    expect(res.statusCode, res.body).toBe(200);
    const fill = OrderResponse.parse(res.json());
    expect(fill.note).toContain('Binance has not reported the fee and realised PnL of this fill yet');
    expect(await tradeOf(fill.id)).toMatchObject({ fee: null, realizedPnl: null });
    const csv = await t.app.inject({ url: '/api/trades.csv', headers: ann });
    const row = csv.body.split('\r\n').find((line) => line.endsWith(`,${fill.id},binance`)) ?? '';
    expect(row.split(',').slice(5, 7)).toEqual(['', '']);
    const told = await until(async () => {
      const trade = await tradeOf(fill.id);
      return trade?.fee === null ? undefined : trade;
    });
    expect(told.fee).toBeCloseTo(0.004 * 60_000 * 0.0005, 8);
    expect(told.realizedPnl).toBe(0);
  });

  it('a close whose answer is unknown is looked up: found filled, it is the answer', async () => {
    binance.fault({ route: 'POST /fapi/v1/order', afterFill: true, error: BINANCE_ERRORS.backendTimeout });
    const count = placed();
    const res = await close('BTC/USDT');
    expect(res.statusCode, res.body).toBe(200);
    const closed = CloseResponse.parse(res.json());
    expect(closed.message).toMatch(/^Closed BTC\/USDT long: /);
    expect(closed.fill.id).toBe(String(binance.orders.at(-1)?.orderId));
    expect(binance.orders.at(-1)).toMatchObject({ side: 'SELL', reduceOnly: true });
    expect(placed()).toBe(count + 1);
    expect(await tradeOf(closed.fill.id)).toMatchObject({ side: 'sell' });
  });

  it('a close whose answer is unknown and that is not found: 503 "outcome unknown", never a 500; one that ended unfilled: the refusal', async () => {
    binance.trade(KEY.apiKey, 'ETHUSDT', 'BUY', '0.05');
    binance.fault({ route: 'POST /fapi/v1/order', error: BINANCE_ERRORS.backendTimeout });
    const count = placed();
    const lookups = calls('GET /fapi/v1/order?');
    const res = await close('ETH/USDT');
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json()).toMatchObject({ code: 'outcome_unknown' });
    expect(res.json<{ detail: string }>().detail).toBe(
      'Binance did not say whether the ETH/USDT close was placed, and looking up by client order id has not ' +
        `found it yet (${BINANCE_ERRORS.backendTimeout.msg}). Check your positions before closing again.`,
    );
    expect(calls('GET /fapi/v1/order?') - lookups).toBeGreaterThanOrEqual(2);
    expect(placed()).toBe(count);

    binance.fault({
      route: 'POST /fapi/v1/order',
      venue: { status: 'EXPIRED', executed: '0' },
      error: BINANCE_ERRORS.backendTimeout,
    });
    const expired = await close('ETH/USDT');
    expect(expired.statusCode, expired.body).toBe(400);
    expect(expired.json()).toEqual({
      detail: 'Binance expired the order without filling any of it; nothing was placed.',
    });
    expect(placed()).toBe(count + 1);
  });

  it('close all: a close still unknown is named in a 503, the others are closed and recorded; the next close all ends it', async () => {
    binance.trade(KEY.apiKey, 'BTCUSDT', 'BUY', '0.002');
    const open = () =>
      t.app
        .inject({ url: '/api/positions', headers: ann })
        .then((r) => (r.json() as unknown[]).map((p) => Position.parse(p).symbol).sort());
    expect(await open()).toEqual(['BTC/USDT', 'ETH/USDT']);
    // The first close is sent without an answer and never placed; the second fills.
    binance.fault({ route: 'POST /fapi/v1/order', error: BINANCE_ERRORS.backendTimeout });
    const count = placed();
    const res = await closeAll();
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json()).toMatchObject({ code: 'outcome_unknown' });
    expect(placed()).toBe(count + 1);
    const done = binance.orders.at(-1);
    const closedPair = done?.symbol === 'BTCUSDT' ? 'BTC/USDT' : 'ETH/USDT';
    const leftPair = closedPair === 'BTC/USDT' ? 'ETH/USDT' : 'BTC/USDT';
    const detail = res.json<{ detail: string }>().detail;
    expect(detail).toMatch(new RegExp(`^Closed 1 position: ${closedPair}; realised `));
    expect(detail).toContain(`Binance did not say whether the ${leftPair} close was placed`);
    expect(await tradeOf(String(done?.orderId))).toMatchObject({ side: 'sell' });
    expect(await open()).toEqual([leftPair]);

    // Now sent without an answer but placed: looked up and answered as the fill.
    binance.fault({ route: 'POST /fapi/v1/order', afterFill: true, error: BINANCE_ERRORS.backendTimeout });
    const rest = await closeAll();
    expect(rest.statusCode, rest.body).toBe(200);
    const all = CloseAllResponse.parse(rest.json());
    expect(all.fills.map((f) => f.symbol)).toEqual([leftPair]);
    expect(all.message).toMatch(new RegExp(`^Closed 1 position: ${leftPair}; `));
    expect(placed()).toBe(count + 2);
    expect(await open()).toEqual([]);
  });

  it('after -4116 with no order found, the key is "outcome unknown", looked up on every retry and never sent again', async () => {
    binance.fault({ route: 'POST /fapi/v1/order', error: BINANCE_ERRORS.duplicate });
    const key = randomUUID();
    const count = placed();
    const lookups = calls('GET /fapi/v1/order?');
    const res = await order(250, key);
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json()).toMatchObject({ code: 'outcome_unknown' });
    expect(res.json<{ detail: string }>().detail).toMatch(
      /^Binance says an order with this client order id already exists, but it has not shown it yet\./,
    );
    expect(calls('GET /fapi/v1/order?') - lookups).toBeGreaterThanOrEqual(2);
    // Past the settle time, 30 retries at once: each looks it up, none sends it.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS + 50));
    const sent = calls('POST /fapi/v1/order');
    const looked = calls('GET /fapi/v1/order?');
    const retries = await Promise.all(Array.from({ length: 30 }, () => order(250, key)));
    // Each is 503: the look-up found nothing, or (30 at once on one loopback double) got no answer in time.
    expect(retries.map((r) => r.statusCode)).toEqual(Array.from({ length: 30 }, () => 503));
    const exists = retries.filter((r) => r.json<{ detail: string }>().detail.startsWith('Binance says'));
    expect(exists.length).toBeGreaterThan(0);
    expect(calls('GET /fapi/v1/order?') - looked).toBeGreaterThanOrEqual(exists.length);
    expect(calls('POST /fapi/v1/order')).toBe(sent);
    expect(placed()).toBe(count);
  });
});
