import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { UNKNOWN_SETTLE_MS } from '../../server/modules/trading/trading.service';
import { describe as say, signUp, type Answer, type Api } from './support/api';
import { recordFigures } from './support/figures';
import { readHealth, until, untilCleared, untilDegraded } from './support/health';
import { sleep } from './support/mode';
import { OrderBook, readOrderAnswer, type SentOrder } from './support/orders';
import { netBySymbol, signedPositions } from './support/reads';
import { CrashableServer } from './support/server';
import { storedOrders } from './support/stored';
import { TcpProxy, throughProxy } from './support/tcp-proxy';
import { createTarget, targetNames, type Target } from './support/target';

const USERS = 4;
const PER_USER = 2;
/** How long PostgreSQL stays cut off: every connection dropped, every new one refused. */
const CUT_MS = 5_000;
/** An answer during the cut must come this fast: no request waits on a database that is not there. */
const FAST_MS = 6_500;

const Detail = z.object({ detail: z.string().min(10) }).strict();

/**
 * PostgreSQL restarting under load, as the server sees it: a proxy on loopback between the two drops
 * every connection and refuses new ones for a few seconds while users keep placing paper orders. Only on
 * PostgreSQL (TEST_DATABASE_URL): the embedded database runs inside the server process.
 */
describe.each(targetNames().filter((n) => n === 'postgres'))(
  'faults in the database: %s cut off for 5 s under load',
  (name) => {
    let target: Target;
    let proxy: TcpProxy;
    let server: CrashableServer;
    let users: Api[] = [];
    const book = new OrderBook();

    beforeAll(async () => {
      target = await createTarget(name);
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
      expect(all.filter((o) => o.orderIds.size > 1).map((o) => o.key), 'keys with two orders').toEqual([]);
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
