import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { UNKNOWN_SETTLE_MS } from '../../server/modules/trading/trading.service';
import { dbTargets } from '../helpers/db';
import { signUp, type Api } from './support/api';
import { netBySymbol, signedPositions } from './support/reads';
import { recordFigures } from './support/figures';
import { KILL_ROUNDS, kills, midBurst, runKillScenario, useKillServer } from './support/kill-scenario';
import { between } from './support/mode';
import { OrderBook, orderClient, startBurst } from './support/orders';
import { storedOrders } from './support/stored';

const USERS = 8;
const IN_FLIGHT_PER_USER = 3;

describe.each(dbTargets())('kill -9 during an order burst, on %s', (name) => {
  let users: Api[] = [];
  const book = new OrderBook();
  const problems: string[] = [];

  const scenario = useKillServer(name, {
    setup: async (server) => {
      users = await Promise.all(Array.from({ length: USERS }, (_, i) => signUp(server.base, `burst${i}`)));
    },
  });
  // The server's default BINANCE_ORDER_SETTLE_MS, which paper orders keep to as well.
  const client = orderClient({
    book,
    problems,
    users: () => users,
    settleMs: UNKNOWN_SETTLE_MS,
    retries: 2,
  });

  it(`keeps every acknowledged order exactly once through ${kills(KILL_ROUNDS)}`, async () => {
    const started = performance.now();
    const { rounds, killedAt } = await runKillScenario({
      server: scenario.server,
      burst: (round) => startBurst({ users, book, perUser: IN_FLIGHT_PER_USER, round }),
      killAt: (burst) => midBurst(burst, between(30, 120)),
      atKill: (burst) => ({ inFlightAtKill: burst.inFlight() }),
      restart: ({ round }) => client.recover(round, 40),
    });

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
    await scenario.server.stop();
    const stored = await storedOrders(scenario.database.open);
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
      rounds: KILL_ROUNDS,
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
