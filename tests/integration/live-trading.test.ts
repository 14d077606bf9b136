import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ExchangeKey } from '../../src/contracts/exchanges';
import { AccountState, Balance, OrderResponse, Position } from '../../src/contracts/trading';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';
import { BINANCE_ERRORS, startSignedDouble, type SignedDouble } from '../fixtures/binance-signed-double';

const KEY = { apiKey: 'LiveTradeKey0123456789abcdef', secret: 'live-trade-secret-0123456789' };
const BOB_KEY = { apiKey: 'BobTradeKey0123456789abcdefg', secret: 'bob-trade-secret-0123456789' };
const SETTLE_MS = 400;
const TIMEOUT_MS = 500;

type Auth = { authorization: string };

describe.each(dbTargets())('live Binance USD-M account on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let binance: SignedDouble;
  let ann: Auth;
  let bob: Auth;
  let keyId = '';

  beforeAll(async () => {
    binance = await startSignedDouble();
    binance.keys.set(KEY.apiKey, { ...KEY, ipRestrict: true });
    t = await startTestApp(target, {
      MARKET_SOURCE: 'sim',
      BINANCE_FAPI_URL: binance.url,
      BINANCE_API_URL: binance.url,
      BINANCE_DEMO_FAPI_URL: 'http://127.0.0.1:9',
      BINANCE_TIMEOUT_MS: String(TIMEOUT_MS),
      BINANCE_ORDER_SETTLE_MS: String(SETTLE_MS),
    });
    ann = await signUpAndLogIn(t.app, 'ann');
    bob = await signUpAndLogIn(t.app, 'bob');
    const saved = await t.app.inject({
      method: 'POST',
      url: '/api/exchanges/',
      headers: ann,
      payload: { exchangeName: 'binance', apiKey: KEY.apiKey, secretKey: KEY.secret },
    });
    keyId = ExchangeKey.parse(saved.json()).id;
  });
  afterAll(async () => {
    await t.close();
    await binance.close();
  });
  beforeEach(() => {
    binance.clockSkewMs = 0;
  });

  const account = (auth: Auth) => t.app.inject({ url: '/api/account', headers: auth });
  const use = (auth: Auth, choice: string) =>
    t.app.inject({ method: 'PUT', url: '/api/account', headers: auth, payload: { account: choice } });
  const order = (amount: number, key = randomUUID(), symbol = 'BTC/USDT') =>
    t.app.inject({
      method: 'POST',
      url: '/api/orders',
      headers: { ...ann, 'idempotency-key': key },
      payload: { symbol, side: 'long', type: 'market', amount },
    });
  const placed = () => binance.orders.length;

  it('starts on paper, switches to one of the user’s keys (remembered), never to someone else’s', async () => {
    expect(AccountState.parse((await account(ann)).json())).toEqual({
      account: 'paper',
      venue: 'paper',
      mode: 'paper',
      keyHint: null,
    });
    const bobTries = await use(bob, keyId);
    expect(bobTries.statusCode).toBe(404);
    expect(bobTries.json()).toEqual({ detail: 'API key not found.' });
    const chosen = await use(ann, keyId);
    expect(chosen.statusCode, chosen.body).toBe(200);
    expect(chosen.json()).toEqual({ account: keyId, venue: 'binance', mode: 'live', keyHint: 'Live…cdef' });
    expect((await account(ann)).json()).toMatchObject({ account: keyId, mode: 'live' });
    expect((await account(bob)).json()).toMatchObject({ account: 'paper' });
    const balance = Balance.parse((await t.app.inject({ url: '/api/account/balance', headers: ann })).json());
    expect(balance).toMatchObject({ exchange: 'binance-usdm', walletBalance: 1000 });
  });

  it('sizes the USDT total by the lot step, sends a signed MARKET order whose client id comes from the Idempotency-Key', async () => {
    const key = randomUUID();
    const res = await order(250, key);
    expect(res.statusCode, res.body).toBe(200);
    const fill = OrderResponse.parse(res.json());
    // 250 / 60 000 = 0.0041666… → 0.004 by the 0.001 step.
    expect(fill).toMatchObject({ symbol: 'BTC/USDT', side: 'buy', quantity: 0.004, price: 60_000 });
    expect(fill.fee).toBeCloseTo(0.004 * 60_000 * 0.0005, 8);
    const sent = binance.requests.filter((r) => r.startsWith('POST /fapi/v1/order?')).at(-1) ?? '';
    expect(sent).toMatch(
      /^POST \/fapi\/v1\/order\?symbol=BTCUSDT&side=BUY&type=MARKET&quantity=0\.004&newClientOrderId=sc-[0-9a-f]{32}&newOrderRespType=RESULT&recvWindow=5000&timestamp=\d+&signature=[0-9a-f]{64}$/,
    );
    // The same key again: answered from the first fill, nothing sent.
    const count = placed();
    const again = await order(250, key);
    expect(OrderResponse.parse(again.json()).id).toBe(fill.id);
    expect(placed()).toBe(count);
    // exchangeInfo was read once for both.
    expect(binance.requests.filter((r) => r.startsWith('GET /fapi/v1/exchangeInfo')).length).toBe(1);

    const positions = (await t.app.inject({ url: '/api/positions', headers: ann })).json() as unknown[];
    expect(positions.map((p) => Position.parse(p))).toEqual([
      expect.objectContaining({
        symbol: 'BTC/USDT',
        side: 'long',
        size: 0.004,
        entryPrice: 60_000,
        leverage: 20,
        margin: 12,
      }),
    ]);
  });

  it('refuses below the minimum notional before sending, naming the minimum as paper does', async () => {
    const before = binance.requests.length;
    const res = await order(50);
    expect(res.statusCode).toBe(400);
    expect(res.json<{ detail: string }>().detail).toMatch(
      /^The minimum order for [A-Z]+\/USDT is 100 USDT\./,
    );
    expect(binance.requests.slice(before).some((r) => r.startsWith('POST /fapi/v1/order'))).toBe(false);
  });

  const refusals = [
    ['-1022 signature', BINANCE_ERRORS.signature],
    ['-2014 key format', BINANCE_ERRORS.keyFormat],
    ['-2015 key rejected', BINANCE_ERRORS.keyRejected],
    ['-2019 margin', BINANCE_ERRORS.margin],
    ['-4164 min notional', BINANCE_ERRORS.minNotional('100')],
  ] as const;
  for (const [name, error] of refusals) {
    it(`surfaces ${name} with Binance's message and does not retry it`, async () => {
      binance.fault({ route: 'POST /fapi/v1/order', error });
      const count = placed();
      const key = randomUUID();
      const res = await order(250, key);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ detail: error.msg });
      expect(placed()).toBe(count);
      // A retry of the refused key gets the same answer, and sends nothing.
      const sent = binance.requests.length;
      const again = await order(250, key);
      expect(again.json()).toEqual({ detail: error.msg });
      expect(binance.requests.slice(sent).some((r) => r.startsWith('POST /fapi/v1/order'))).toBe(false);
    });
  }

  it('re-syncs after one -1021 and places the order; a second -1021 surfaces', async () => {
    binance.fault({ route: 'POST /fapi/v1/order', error: BINANCE_ERRORS.timestamp });
    const ok = await order(250);
    expect(ok.statusCode, ok.body).toBe(200);
    binance.fault({ route: 'POST /fapi/v1/order', error: BINANCE_ERRORS.timestamp, count: 2 });
    const refused = await order(250);
    expect(refused.json()).toEqual({ detail: BINANCE_ERRORS.timestamp.msg });
  });

  it('answers 429 and 418 as 503 with Retry-After, keeps off Binance until then, and the same key places it after', async () => {
    for (const [status, error, what] of [
      [429, BINANCE_ERRORS.tooMany, 'is limiting requests'],
      [418, BINANCE_ERRORS.banned, 'has banned this server'],
    ] as const) {
      binance.fault({ route: 'POST /fapi/v1/order', error, headers: { 'retry-after': '1' } });
      const key = randomUUID();
      const count = placed();
      const res = await order(250, key);
      expect(res.statusCode, String(status)).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.json()).toEqual({
        detail: `Binance ${what} (${status}); nothing was placed. Try again in 1 s.`,
      });
      const sent = binance.requests.length;
      const waiting = await order(250, key);
      expect(waiting.statusCode).toBe(503);
      // Nothing of this account's reaches Binance while it waits (a public price read may).
      expect(binance.requests.slice(sent).filter((r) => !r.startsWith('GET /fapi/v1/ticker/'))).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const after = await order(250, key);
      expect(after.statusCode, after.body).toBe(200);
      expect(placed()).toBe(count + 1);
      expect(OrderResponse.parse((await order(250, key)).json()).id).toBe(
        OrderResponse.parse(after.json()).id,
      );
    }
  });

  it('a timeout after Binance accepted the order: found by its client id, answered, never placed twice', async () => {
    binance.fault({ route: 'POST /fapi/v1/order', afterFill: true, delayMs: TIMEOUT_MS * 3 });
    const count = placed();
    const key = randomUUID();
    const res = await order(250, key);
    expect(res.statusCode, res.body).toBe(200);
    const fill = OrderResponse.parse(res.json());
    expect(placed()).toBe(count + 1);
    expect(binance.orders.at(-1)?.orderId).toBe(Number(fill.id));
    const again = await order(250, key);
    expect(OrderResponse.parse(again.json()).id).toBe(fill.id);
    expect(placed()).toBe(count + 1);
  });

  it('-1007 after the order was placed: looked up, answered with the fill', async () => {
    binance.fault({ route: 'POST /fapi/v1/order', afterFill: true, error: BINANCE_ERRORS.backendTimeout });
    const count = placed();
    const res = await order(250);
    expect(res.statusCode, res.body).toBe(200);
    expect(placed()).toBe(count + 1);
  });

  it('-1007 when nothing was placed: 503, then a retry with the same key sends it once after the settle time', async () => {
    binance.fault({ route: 'POST /fapi/v1/order', error: BINANCE_ERRORS.backendTimeout });
    const count = placed();
    const key = randomUUID();
    const res = await order(250, key);
    expect(res.statusCode).toBe(503);
    expect((res.json() as { detail: string }).detail).toContain(
      'Binance did not say whether the order was placed',
    );
    expect((res.json() as { detail: string }).detail).toContain(BINANCE_ERRORS.backendTimeout.msg);
    expect(placed()).toBe(count);
    const lookups = binance.requests.filter((r) => r.startsWith('GET /fapi/v1/order?')).length;
    expect(lookups).toBeGreaterThanOrEqual(2);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS + 50));
    const [a, b] = await Promise.all([order(250, key), order(250, key)]);
    const codes = [a.statusCode, b.statusCode].sort();
    // One of the two racing retries sends it; the other is told it is already being placed, or gets the fill.
    expect(codes[0]).toBe(200);
    expect(placed()).toBe(count + 1);
    const third = await order(250, key);
    expect(third.statusCode).toBe(200);
    expect(placed()).toBe(count + 1);
  });

  it('-1006 after Binance filled the order (503 with a code): looked up and answered as the fill, once', async () => {
    binance.fault({ route: 'POST /fapi/v1/order', afterFill: true, error: BINANCE_ERRORS.messageBus });
    const count = placed();
    const key = randomUUID();
    const res = await order(250, key);
    expect(res.statusCode, res.body).toBe(200);
    const fill = OrderResponse.parse(res.json());
    expect(fill).toMatchObject({ status: 'filled', account: { mode: 'live' } });
    expect(fill.id).toBe(String(binance.orders.at(-1)?.orderId));
    // Retries with the same key answer the same fill and never send it again.
    for (let i = 0; i < 3; i++) {
      const again = await order(250, key);
      expect(again.statusCode, again.body).toBe(200);
      expect(OrderResponse.parse(again.json()).id).toBe(fill.id);
    }
    expect(placed()).toBe(count + 1);
  });

  for (const [name, fault] of [
    ['a 500 with -1000', { error: BINANCE_ERRORS.internal }],
    ['a 502 from a proxy, with no code', { raw: { status: 502, body: '<html>Bad Gateway</html>' } }],
  ] as const) {
    it(`${name} after the fill is an unknown outcome: found by its client id, not a 400`, async () => {
      binance.fault({ route: 'POST /fapi/v1/order', afterFill: true, ...fault });
      const count = placed();
      const res = await order(250);
      expect(res.statusCode, res.body).toBe(200);
      expect(placed()).toBe(count + 1);
    });
    it(`${name} with nothing placed: 503 "outcome unknown" (never "failed"), looked up before answering`, async () => {
      binance.fault({ route: 'POST /fapi/v1/order', ...fault });
      const count = placed();
      const lookupsBefore = binance.requests.filter((r) => r.startsWith('GET /fapi/v1/order?')).length;
      const res = await order(250);
      expect(res.statusCode, res.body).toBe(503);
      expect(res.json()).toMatchObject({ code: 'outcome_unknown' });
      expect((res.json() as { detail: string }).detail).toContain('did not say whether the order was placed');
      const lookups = binance.requests.filter((r) => r.startsWith('GET /fapi/v1/order?')).length;
      expect(lookups - lookupsBefore).toBeGreaterThanOrEqual(2);
      expect(placed()).toBe(count);
    });
  }

  it('an order Binance answers NEW is looked up until FILLED and answered as the fill', async () => {
    binance.fault({ route: 'POST /fapi/v1/order', venue: { status: 'NEW', fillAfterMs: 150 } });
    const key = randomUUID();
    const count = placed();
    const res = await order(250, key);
    expect(res.statusCode, res.body).toBe(200);
    const fill = OrderResponse.parse(res.json());
    expect(fill.status).toBe('filled');
    expect(fill.quantity).toBeGreaterThan(0);
    expect(OrderResponse.parse((await order(250, key)).json()).id).toBe(fill.id);
    expect(placed()).toBe(count + 1);
  });

  it('a NEW order still working after the settle time is "unknown", and a retry never sends its client id again', async () => {
    binance.fault({ route: 'POST /fapi/v1/order', venue: { status: 'NEW', fillAfterMs: SETTLE_MS * 4 } });
    const key = randomUUID();
    const count = placed();
    const res = await order(250, key);
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json()).toMatchObject({ code: 'outcome_unknown' });
    expect((res.json() as { detail: string }).detail).toContain('NEW');
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS * 4));
    const after = await order(250, key);
    expect(after.statusCode, after.body).toBe(200);
    expect(OrderResponse.parse(after.json()).status).toBe('filled');
    expect(placed()).toBe(count + 1);
    expect(
      binance.orders.filter((o) => o.clientOrderId === binance.orders.at(-1)?.clientOrderId),
    ).toHaveLength(1);
  });

  it('a partial fill that expired is reported as partial, with the executed quantity', async () => {
    binance.fault({ route: 'POST /fapi/v1/order', venue: { status: 'EXPIRED', executed: '0.002' } });
    const res = await order(250);
    expect(res.statusCode, res.body).toBe(200);
    const fill = OrderResponse.parse(res.json());
    expect(fill.status).toBe('partially_filled');
    expect(fill.quantity).toBe(0.002);
    expect(fill.note).toContain('Binance filled 0.002 of 0.004 and expired the rest.');
  });

  it('an order that expired with nothing executed is a refusal, and a retry does not send it again', async () => {
    binance.fault({ route: 'POST /fapi/v1/order', venue: { status: 'EXPIRED', executed: '0' } });
    const key = randomUUID();
    const count = placed();
    const res = await order(250, key);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toEqual({
      detail: 'Binance expired the order without filling any of it; nothing was placed.',
    });
    expect((await order(250, key)).statusCode).toBe(400);
    expect(placed()).toBe(count + 1);
  });

  it("one account's 429 does not hold back another account's orders on the same host", async () => {
    binance.keys.set(BOB_KEY.apiKey, { ...BOB_KEY, ipRestrict: true });
    const saved = await t.app.inject({
      method: 'POST',
      url: '/api/exchanges/',
      headers: bob,
      payload: { exchangeName: 'binance', apiKey: BOB_KEY.apiKey, secretKey: BOB_KEY.secret },
    });
    const bobKey = ExchangeKey.parse(saved.json()).id;
    expect((await use(bob, bobKey)).statusCode).toBe(200);
    binance.fault({
      route: 'POST /fapi/v1/order',
      error: BINANCE_ERRORS.tooMany,
      headers: { 'retry-after': '2' },
    });
    expect((await order(250)).statusCode).toBe(503);
    expect((await order(250)).statusCode).toBe(503);
    const bobs = await t.app.inject({
      method: 'POST',
      url: '/api/orders',
      headers: { ...bob, 'idempotency-key': randomUUID() },
      payload: { symbol: 'BTC/USDT', side: 'long', type: 'market', amount: 250 },
    });
    expect(bobs.statusCode, bobs.body).toBe(200);
    expect(OrderResponse.parse(bobs.json()).account).toEqual({
      venue: 'binance',
      mode: 'live',
      keyHint: expect.any(String),
    });
    await use(bob, 'paper');
    await new Promise((resolve) => setTimeout(resolve, 2100));
  });

  it('closes the live position with a reduce-only order, and goes back to paper', async () => {
    const closed = await t.app.inject({
      method: 'POST',
      url: '/api/close_position',
      headers: ann,
      payload: { symbol: 'BTC/USDT' },
    });
    expect(closed.statusCode, closed.body).toBe(200);
    expect(binance.orders.at(-1)).toMatchObject({ side: 'SELL', reduceOnly: true });
    expect((await t.app.inject({ url: '/api/positions', headers: ann })).json()).toEqual([]);
    expect((await use(ann, 'paper')).json()).toEqual({
      account: 'paper',
      venue: 'paper',
      mode: 'paper',
      keyHint: null,
    });
    const count = placed();
    expect((await order(250)).statusCode).toBe(200);
    expect(placed()).toBe(count);
  });

  it('falls back to paper when the chosen key is deleted', async () => {
    await use(ann, keyId);
    await t.app.inject({ method: 'DELETE', url: `/api/exchanges/${keyId}`, headers: ann });
    expect((await account(ann)).json()).toEqual({
      account: 'paper',
      venue: 'paper',
      mode: 'paper',
      keyHint: null,
    });
  });

  it('never sends the secret', () => {
    for (const r of binance.requests) expect(r).not.toContain(KEY.secret);
  });
});
