import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNKNOWN_SETTLE_MS } from '../../server/modules/trading/trading.service';
import { signUp, type Api } from './support/api';
import { netBySymbol, signedPositions } from './support/reads';
import { recordFigures } from './support/figures';
import { between, sample, SHORT, sleep } from './support/mode';
import { OrderBook, orderClient, startBurst } from './support/orders';
import { CrashableServer } from './support/server';
import { storedOrders } from './support/stored';
import { createTarget, targetNames, type Target } from './support/target';

const ROUNDS = SHORT ? 1 : 3;
const USERS = 8;
const IN_FLIGHT_PER_USER = 3;

describe.each(targetNames())('kill -9 during an order burst, on %s', (name) => {
  let target: Target;
  let server: CrashableServer;
  let users: Api[] = [];
  const book = new OrderBook();
  const problems: string[] = [];

  // The server's default BINANCE_ORDER_SETTLE_MS, which paper orders keep to as well.
  const { retry, replay } = orderClient({
    book,
    problems,
    users: () => users,
    settleMs: UNKNOWN_SETTLE_MS,
    retries: 2,
  });

  beforeAll(async () => {
    target = await createTarget(name);
    server = await CrashableServer.create(target.env);
    await server.start();
    users = await Promise.all(Array.from({ length: USERS }, (_, i) => signUp(server.base, `burst${i}`)));
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    await target?.cleanup();
  });

  it(`keeps every acknowledged order exactly once through ${ROUNDS} kill${ROUNDS > 1 ? 's' : ''}`, async () => {
    const started = performance.now();
    const rounds: Record<string, number>[] = [];
    const killedAt: number[] = [];

    for (let round = 1; round <= ROUNDS; round += 1) {
      const burst = startBurst({ users, book, perUser: IN_FLIGHT_PER_USER, round });
      const burstStarted = performance.now();
      await burst.acknowledged(between(30, 120));
      await sleep(between(0, 100)); // so that the kill lands anywhere in a request, not just after an answer
      burst.stop();
      const inFlightAtKill = burst.inFlight();
      const killMs = Math.round(performance.now() - burstStarted);
      killedAt.push(Date.now());
      await server.kill();
      await burst.done;
      const restartMs = await server.start();

      const thisRound = [...book.orders.values()].filter((o) => o.round === round);
      const unacknowledged = thisRound.filter((o) => o.order === null);
      const retried = await Promise.all(unacknowledged.map(retry));
      const replays = sample(book.acknowledged(), 40);
      await Promise.all(replays.map(replay));
      rounds.push({
        round,
        sent: thisRound.length,
        acknowledged: thisRound.length - unacknowledged.length,
        inFlightAtKill,
        killMs,
        restartMs,
        recovered: retried.filter((r) => r.read.kind === 'order').length,
        refused: retried.filter((r) => r.read.kind === 'refused').length,
        answered503: retried.filter((r) => r.waited).length,
        replayed: replays.length,
      });
    }

    const all = [...book.orders.values()];
    expect(problems, 'retries and replays').toEqual([]);
    expect(
      book.unsettled().map((o) => o.key),
      'keys neither filled nor refused',
    ).toEqual([]);
    const doubled = all.filter((o) => o.orderIds.size > 1);
    expect(
      doubled.map((o) => `${o.key}: ${[...o.orderIds].join(', ')}`),
      'keys answered with two orders',
    ).toEqual([]);
    const keysOf = new Map<string, string[]>();
    for (const o of all) if (o.order) keysOf.set(o.order.id, [...(keysOf.get(o.order.id) ?? []), o.key]);
    expect(
      [...keysOf].filter(([, keys]) => keys.length > 1),
      'orders answered to two keys',
    ).toEqual([]);

    // Each user's positions are the sum of their orders' quantities, and nothing else.
    for (const [user, api] of users.entries()) {
      const orders = all.flatMap((o) => (o.user === user && o.order !== null ? [o.order] : []));
      const expected = netBySymbol(
        orders.map((o) => ({ symbol: o.symbol, buy: o.side === 'buy', quantity: o.quantity })),
      );
      expect(await signedPositions(api), `positions of burst${user}`).toEqual(expected);
    }

    // What the database holds: one fill per key that answered with an order, and no other fill.
    await server.stop();
    const stored = await storedOrders(target.open);
    const fillsPerClientId = new Map<string, number>();
    for (const f of stored.fills) {
      const id = `${f.username}|${f.clientOrderId}`;
      fillsPerClientId.set(id, (fillsPerClientId.get(id) ?? 0) + 1);
    }
    expect(
      [...fillsPerClientId].filter(([, n]) => n > 1),
      'client order ids filled twice',
    ).toEqual([]);
    const answered = all.flatMap((o) => (o.order === null ? [] : [o.order.id]));
    expect(stored.fills.map((f) => f.orderId).sort(), 'fills in the ledger vs orders answered').toEqual(
      answered.sort(),
    );
    const records = new Map(stored.requests.map((r) => [`${r.username}|${r.key}`, r]));
    for (const o of all.filter((x) => x.order !== null)) {
      expect(records.get(`burst${o.user}|${o.key}`), o.key).toMatchObject({
        state: 'filled',
        orderId: o.order?.id,
      });
    }

    // Of the orders a retry recovered, those that had filled before the kill cut their answer.
    const filledAt = new Map(stored.fills.map((f) => [f.orderId, f.createdAt.getTime()]));
    const acknowledged = all.filter((o) => o.first?.status === 200);
    const recovered = all.filter((o) => o.order !== null && o.first?.status !== 200);
    recordFigures(`orders-kill9-${name}`, {
      db: name,
      rounds: ROUNDS,
      users: USERS,
      sent: all.length,
      acknowledged: acknowledged.length,
      unacknowledged: all.length - acknowledged.length,
      recovered: recovered.length,
      recoveredFilledBeforeKill: recovered.filter(
        (o) => (filledAt.get(o.order?.id ?? '') ?? Infinity) < (killedAt[o.round - 1] ?? 0),
      ).length,
      refused: all.filter((o) => o.refusal !== null).length,
      killMs: rounds.map((r) => r.killMs),
      inFlightAtKill: rounds.map((r) => r.inFlightAtKill),
      restartToHealthyMs: rounds.map((r) => r.restartMs),
      perRound: rounds,
      durationMs: Math.round(performance.now() - started),
    });
  }, 600_000);
});
