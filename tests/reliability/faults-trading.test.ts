import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ExchangeKey } from '../../src/contracts/exchanges';
import { UNKNOWN_SETTLE_MS } from '../../server/modules/trading/trading.service';
import { BINANCE_ERRORS, startSignedDouble, type SignedDouble } from '../fixtures/binance-signed-double';
import { dbTargets, useDatabase, type ServerDatabase } from '../helpers/db';
import { describe as say, signUp, type Answer, type Api } from './support/api';
import { recordFigures } from './support/figures';
import { readHealth, until, untilCleared, untilDegraded } from './support/health';
import { sleep } from './support/mode';
import { OrderBook, readOrderAnswer, type SentOrder } from './support/orders';
import { netBySymbol, signedPositions } from './support/reads';
import { CrashableServer } from './support/server';
import { storedOrders } from './support/stored';
import { TcpProxy, throughProxy } from './support/tcp-proxy';

/**
 * Faults on the trading path, each against the real server process: the exchange misbehaving under a
 * live key (always), and PostgreSQL cut off under an order burst (with TEST_DATABASE_URL).
 */

const KEY = { apiKey: 'FaultTradeKey0123456789abcdef', secret: 'fault-trade-secret-0123456789' };
/** How long the server waits for one signed call (BINANCE_TIMEOUT_MS), and for a lost order to appear. */
const TIMEOUT_MS = 500;
const SETTLE_MS = 400;

/** A body a client can read: `{"detail": "…"}` with a sentence, never a stack. */
/** What the user reads instead of an order: a sentence, and a code when the outcome is not known yet. */
const Detail = z
  .object({ detail: z.string().min(10), code: z.literal('outcome_unknown').optional() })
  .strict();

/**
 * The exchange misbehaving under a user with a live key: 5xx with and without Binance's JSON, 429 and
 * 418 with Retry-After, answers that never come. The user retries with the same Idempotency-Key, as the
 * browser does; each key ends as exactly one order on the exchange.
 */
describe('faults at the exchange: a live key while Binance answers 5xx, 429/418 or nothing', () => {
  let target: ServerDatabase;
  let server: CrashableServer;
  let binance: SignedDouble;
  let user: Api;
  /** Every order id each key was answered with. */
  const answered = new Map<string, Set<string>>();
  const problems: string[] = [];
  const figures: Record<string, Record<string, number | string>> = {};

  beforeAll(async () => {
    [target, binance] = await Promise.all([useDatabase('pglite', { server: true }), startSignedDouble()]);
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
    recordFigures('fault-exchange', {
      timeoutMs: TIMEOUT_MS,
      settleMs: SETTLE_MS,
      keys: answered.size,
      ...figures,
    });
  });
});

const USERS = 4;
const PER_USER = 2;
/** How long PostgreSQL stays cut off: every connection dropped, every new one refused. */
const CUT_MS = 5_000;
/** An answer during the cut must come this fast: no request waits on a database that is not there. */
const FAST_MS = 6_500;

/**
 * PostgreSQL restarting under load, as the server sees it: a proxy on loopback between the two drops
 * every connection and refuses new ones for a few seconds while users keep placing paper orders. Only on
 * PostgreSQL (TEST_DATABASE_URL): the embedded database runs inside the server process.
 */
describe.each(dbTargets().filter((n) => n === 'postgres'))(
  'faults in the database: %s cut off for 5 s under load',
  (name) => {
    let target: ServerDatabase;
    let proxy: TcpProxy;
    let server: CrashableServer;
    let users: Api[] = [];
    const book = new OrderBook();

    beforeAll(async () => {
      target = await useDatabase(name, { server: true });
      const direct = new URL(target.env.DATABASE_URL ?? '');
      proxy = await TcpProxy.start({ host: direct.hostname, port: Number(direct.port || 5432) });
      server = await CrashableServer.create({
        ...target.env,
        DATABASE_URL: throughProxy(direct.toString(), proxy),
      });
      await server.start();
      users = await Promise.all(Array.from({ length: USERS }, (_, i) => signUp(server.base, `cut${i}`)));
    }, 180_000);
    afterAll(async () => {
      await server?.stop();
      await proxy?.close();
      await target?.cleanup();
    });

    const send = async (o: SentOrder): Promise<{ answer: Answer | null; ms: number }> => {
      const api = users[o.user];
      if (api === undefined) throw new Error(`no user ${o.user}`);
      const started = performance.now();
      const answer = await api.send('POST', '/orders', o.body, { headers: { 'idempotency-key': o.key } });
      book.settle(o, answer);
      return { answer, ms: Math.round(performance.now() - started) };
    };

    it('answers 503 with a detail at once, writes nothing by halves, and recovers by itself', async () => {
      let stopped = false;
      let acked = 0;
      /** Every answer, with when it came relative to the cut (ms; negative: before it). */
      const answers: { at: number; ms: number; answer: Answer | null; key: string }[] = [];
      let cutAt = Number.POSITIVE_INFINITY;
      const workers = users.flatMap((_, user) =>
        Array.from({ length: PER_USER }, async (_w, w) => {
          for (let i = 0; !stopped; i += 1) {
            const o = book.add(user, 1, `cut-u${user}-w${w}-${String(i).padStart(4, '0')}`, {
              symbol: i % 2 === 0 ? 'ETH/USDT' : 'SOL/USDT',
              side: Math.floor(i / 2) % 2 === 0 ? 'long' : 'short',
              type: 'market',
              amount: 120 + (i % 5) * 10,
            });
            const { answer, ms } = await send(o);
            o.first = answer;
            answers.push({ at: Math.round(performance.now() - cutAt), ms, answer, key: o.key });
            if (readOrderAnswer(answer).kind === 'order') acked += 1;
            else await sleep(200); // a client backs off a little after an error
          }
        }),
      );
      await until('orders before the cut', () => acked >= 20, 60_000);

      cutAt = performance.now();
      proxy.cut();
      const detectMs = await untilDegraded(server.base, 'database unreachable', 10_000);
      const positions = await Promise.all(
        users.map(async (u) => {
          const started = performance.now();
          const answer = await u.send('GET', '/positions');
          return { answer, ms: Math.round(performance.now() - started) };
        }),
      );
      for (const p of positions) {
        expect(p.answer?.status, say(p.answer)).toBe(503);
        expect(Detail.parse(p.answer?.body).detail).toMatch(/database/i);
        expect(p.ms).toBeLessThan(FAST_MS);
      }
      await sleep(Math.max(0, CUT_MS - (performance.now() - cutAt)));
      const ackedAtRestore = acked;
      proxy.restore();
      const restoredAt = performance.now();
      await until('orders after the cut', () => acked >= ackedAtRestore + 10, 30_000);
      const ordersBackMs = Math.round(performance.now() - restoredAt);
      await untilCleared(server.base, 'database', 15_000);
      const healthyMs = Math.round(performance.now() - restoredAt);
      expect((await readHealth(server.base))?.code).toBe(200);
      stopped = true;
      await Promise.all(workers);

      // What users saw during the cut: an order, a refusal, or a 503 with a sentence; fast, never a 500.
      const during = answers.filter((a) => a.at >= 0 && a.at <= CUT_MS);
      const bad = answers.filter(
        (a) =>
          a.answer === null ||
          ![200, 400, 422, 503].includes(a.answer.status) ||
          (a.answer.status !== 200 && !Detail.safeParse(a.answer.body).success),
      );
      expect(bad.map((a) => `${a.key}: ${say(a.answer)}`)).toEqual([]);
      expect(during.filter((a) => a.ms > FAST_MS).map((a) => `${a.key}: ${a.ms} ms`)).toEqual([]);

      // Every key whose answer was not an order is sent again, as a client would, until it settles.
      const unsettled = book.unsettled();
      for (let round = 0; round < 3 && book.unsettled().length > 0; round += 1) {
        if (round > 0) await sleep(UNKNOWN_SETTLE_MS + 500);
        await Promise.all(book.unsettled().map((o) => send(o)));
      }
      expect(book.unsettled().map((o) => o.key)).toEqual([]);

      const all = [...book.orders.values()];
      expect(
        all.filter((o) => o.orderIds.size > 1).map((o) => o.key),
        'keys with two orders',
      ).toEqual([]);
      for (const [user, api] of users.entries()) {
        const orders = all.flatMap((o) => (o.user === user && o.order !== null ? [o.order] : []));
        const expected = netBySymbol(
          orders.map((o) => ({ symbol: o.symbol, buy: o.side === 'buy', quantity: o.quantity })),
        );
        expect(await signedPositions(api), `positions of cut${user}`).toEqual(expected);
      }
      const stored = await storedOrders(target.open);
      const answered = all.flatMap((o) => (o.order === null ? [] : [o.order.id]));
      expect(stored.fills.map((f) => f.orderId).sort(), 'ledger fills vs orders answered').toEqual(
        answered.sort(),
      );
      const records = new Map(stored.requests.map((r) => [`${r.username}|${r.key}`, r]));
      for (const o of all.filter((x) => x.order !== null)) {
        expect(records.get(`cut${o.user}|${o.key}`), o.key).toMatchObject({
          state: 'filled',
          orderId: o.order?.id,
        });
      }

      const cutAnswers = during.map((a) => a.ms);
      recordFigures(`fault-database-${name}`, {
        cutMs: CUT_MS,
        users: USERS,
        sent: all.length,
        answeredDuringCut: during.length,
        answered503DuringCut: during.filter((a) => a.answer?.status === 503).length,
        slowestAnswerDuringCutMs: Math.max(0, ...cutAnswers),
        healthDetectMs: detectMs,
        ordersBackAfterRestoreMs: ordersBackMs,
        healthOkAfterRestoreMs: healthyMs,
        retriedAfter: unsettled.length,
        filled: answered.length,
      });
    }, 300_000);
  },
);
