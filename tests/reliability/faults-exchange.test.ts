import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ExchangeKey } from '../../src/contracts/exchanges';
import { BINANCE_ERRORS, startSignedDouble, type SignedDouble } from '../fixtures/binance-signed-double';
import { describe as say, signUp, type Answer, type Api } from './support/api';
import { recordFigures } from './support/figures';
import { readHealth, untilCleared, untilDegraded } from './support/health';
import { sleep } from './support/mode';
import { readOrderAnswer } from './support/orders';
import { CrashableServer } from './support/server';
import { createTarget, type Target } from './support/target';

const KEY = { apiKey: 'FaultTradeKey0123456789abcdef', secret: 'fault-trade-secret-0123456789' };
/** How long the server waits for one signed call (BINANCE_TIMEOUT_MS), and for a lost order to appear. */
const TIMEOUT_MS = 500;
const SETTLE_MS = 400;

/** A body a client can read: `{"detail": "…"}` with a sentence, never a stack. */
const Detail = z.object({ detail: z.string().min(10) }).strict();

/**
 * The exchange misbehaving under a user with a live key: 5xx with and without Binance's JSON, 429 and
 * 418 with Retry-After, answers that never come. The user retries with the same Idempotency-Key, as the
 * browser does; each key ends as exactly one order on the exchange.
 */
describe('faults at the exchange: a live key while Binance answers 5xx, 429/418 or nothing', () => {
  let target: Target;
  let server: CrashableServer;
  let binance: SignedDouble;
  let user: Api;
  /** Every order id each key was answered with. */
  const answered = new Map<string, Set<string>>();
  const problems: string[] = [];
  const figures: Record<string, Record<string, number | string>> = {};

  beforeAll(async () => {
    [target, binance] = await Promise.all([createTarget('pglite'), startSignedDouble()]);
    binance.keys.set(KEY.apiKey, { ...KEY, ipRestrict: true });
    const streams = binance.url.replace('http://', 'ws://');
    server = await CrashableServer.create({
      ...target.env,
      BINANCE_FAPI_URL: binance.url,
      BINANCE_API_URL: binance.url,
      BINANCE_DEMO_FAPI_URL: 'http://127.0.0.1:9',
      BINANCE_USER_STREAM_URL: `${streams}/private/ws?listenKey={listenKey}`,
      BINANCE_DEMO_USER_STREAM_URL: `${streams}/ws/{listenKey}`,
      BINANCE_TIMEOUT_MS: String(TIMEOUT_MS),
      BINANCE_ORDER_SETTLE_MS: String(SETTLE_MS),
    });
    await server.start();
    user = await signUp(server.base, 'faulty');
    const saved = await user.must(ExchangeKey, 'POST', '/exchanges/', {
      exchangeName: 'binance',
      apiKey: KEY.apiKey,
      secretKey: KEY.secret,
    });
    await user.must(z.unknown(), 'PUT', '/account', { account: saved.id });
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    await Promise.all([binance?.close(), target?.cleanup()]);
  });

  const order = async (key: string): Promise<Answer | null> => {
    const answer = await user.send(
      'POST',
      '/orders',
      { symbol: 'BTC/USDT', side: 'long', type: 'market', amount: 250 },
      { headers: { 'idempotency-key': key } },
    );
    const read = readOrderAnswer(answer);
    if (read.kind === 'order') {
      const ids = answered.get(key) ?? new Set<string>();
      ids.add(read.order.id);
      answered.set(key, ids);
    } else if (answer === null || answer.status >= 500 || answer.status === 400) {
      // What the user sees instead of an order: a status and a sentence.
      if (answer === null) problems.push(`${key}: no answer`);
      else if (answer.status !== 503 && answer.status !== 400) problems.push(`${key}: ${say(answer)}`);
      else if (!Detail.safeParse(answer.body).success) problems.push(`${key}: ${say(answer)}`);
    }
    return answer;
  };

  /** Sends a key until it is answered with an order, as a client would: after Retry-After, or 300 ms. */
  const retryUntilPlaced = async (key: string, first: Answer | null, timeoutMs = 15_000): Promise<number> => {
    const started = performance.now();
    let answer = first;
    let tries = 0;
    const seen: string[] = [];
    while (readOrderAnswer(answer).kind !== 'order') {
      seen.push(say(answer));
      if (performance.now() - started > timeoutMs) throw new Error(`${key} not placed: ${seen.join('\n')}`);
      const wait = Number(answer?.retryAfter ?? '') * 1000;
      await sleep(Number.isFinite(wait) && wait > 0 ? wait + 100 : 300);
      answer = await order(key);
      tries += 1;
    }
    return tries;
  };

  const ordersOf = (key: string) => {
    const ids = [...(answered.get(key) ?? [])];
    return binance.orders.filter((o) => ids.includes(String(o.orderId)));
  };

  it('5xx from Binance or its proxy: 503 with a detail, the same key places the order once after', async () => {
    for (const [name, fault] of [
      ['502-html', { raw: { status: 502, body: '<html><body>502 Bad Gateway</body></html>' } }],
      ['503-1007', { error: BINANCE_ERRORS.backendTimeout }],
      ['504-after-fill', { raw: { status: 504, body: 'Gateway Timeout' }, afterFill: true }],
    ] as const) {
      const key = randomUUID();
      const before = binance.orders.length;
      binance.fault({ route: 'POST /fapi/v1/order', count: 2, ...fault });
      const started = performance.now();
      const first = await order(key);
      const firstMs = Math.round(performance.now() - started);
      const kind = readOrderAnswer(first).kind;
      if (name === '504-after-fill') {
        // Binance placed it and the answer was lost: found by its client id, answered at once.
        expect(kind, say(first)).toBe('order');
      } else {
        expect(first?.status, say(first)).toBe(503);
        expect(Detail.parse(first?.body).detail).toContain('same Idempotency-Key');
        await untilDegraded(server.base, 'exchange answering', 3_000);
      }
      const tries = await retryUntilPlaced(key, first);
      expect(binance.orders.length - before, `${name}: orders on the exchange`).toBe(1);
      expect(ordersOf(key).length).toBe(1);
      figures[name] = { firstAnswerMs: firstMs, firstStatus: first?.status ?? 'none', retries: tries };
    }
  }, 120_000);

  it('429 and 418 with Retry-After: 503 naming the wait, health says rate-limited, the key goes through after', async () => {
    for (const [status, seconds] of [
      [429, 1],
      [418, 2],
    ] as const) {
      const key = randomUUID();
      const before = binance.orders.length;
      binance.limit(status, seconds, 1);
      const first = await order(key);
      expect(first?.status, say(first)).toBe(503);
      expect(first?.retryAfter).toBe(String(seconds));
      expect(Detail.parse(first?.body).detail).toMatch(new RegExp(`\\(${status}\\); nothing was placed`));
      const health = await readHealth(server.base);
      expect(health?.health.degraded.join('; ')).toMatch(new RegExp(`\\(${status}\\)`));
      // Sent again before the wait is over: still refused here, nothing reaches Binance.
      const sent = binance.requests.length;
      expect((await order(key))?.status).toBe(503);
      expect(binance.requests.length).toBe(sent);
      const started = performance.now();
      await retryUntilPlaced(key, first);
      const placedAfterMs = Math.round(performance.now() - started);
      const clearedMs = await untilCleared(server.base, 'exchange', 5_000);
      expect(binance.orders.length - before).toBe(1);
      expect(ordersOf(key).length).toBe(1);
      figures[`${status}`] = { retryAfterS: seconds, placedAfterMs, healthClearedMs: clearedMs };
    }
  }, 60_000);

  it('no answer in time (before or after Binance filled it): 503 or the fill, never a second order', async () => {
    for (const [name, fault] of [
      // Held past the timeout, then filled late: the look-up after the settle time finds it.
      ['late-fill', { delayMs: TIMEOUT_MS + 300 }],
      // Filled at once, answer held for ever (past the timeout).
      ['lost-answer', { afterFill: true, delayMs: 30_000 }],
      // Never filled, never answered.
      ['black-hole', { error: BINANCE_ERRORS.backendTimeout, delayMs: 30_000 }],
    ] as const) {
      const key = randomUUID();
      const before = binance.orders.length;
      binance.fault({ route: 'POST /fapi/v1/order', ...fault });
      const started = performance.now();
      const first = await order(key);
      const firstMs = Math.round(performance.now() - started);
      // Never longer than the timeout, the two look-ups and the settle time, with room for a slow machine.
      expect(firstMs, `${name}: first answer`).toBeLessThan(TIMEOUT_MS * 3 + SETTLE_MS + 4_000);
      if (name === 'black-hole') {
        expect(first?.status, say(first)).toBe(503);
        await untilDegraded(server.base, 'exchange not answering', 3_000);
      }
      const tries = await retryUntilPlaced(key, first);
      expect(binance.orders.length - before, `${name}: orders on the exchange`).toBe(1);
      expect(ordersOf(key).length).toBe(1);
      figures[name] = { firstAnswerMs: firstMs, firstStatus: first?.status ?? 'none', retries: tries };
    }
  }, 120_000);

  it('every key is one order on the exchange, and no answer was a 500 or a stack', () => {
    expect(problems).toEqual([]);
    const clientIds = binance.orders.map((o) => o.clientOrderId);
    expect(new Set(clientIds).size, 'client order ids placed twice').toBe(clientIds.length);
    expect([...answered.values()].filter((ids) => ids.size !== 1)).toEqual([]);
    expect(binance.orders.length).toBe(answered.size);
    recordFigures('fault-exchange', { timeoutMs: TIMEOUT_MS, settleMs: SETTLE_MS, keys: answered.size, ...figures });
  });
});
