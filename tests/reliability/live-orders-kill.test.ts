import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { Me } from '../../src/contracts/auth';
import { ExchangeKey } from '../../src/contracts/exchanges';
import { AccountState } from '../../src/contracts/trading';
import { clientIdFor } from '../../server/modules/trading/trading.service';
import { startSignedDouble, type SignedDouble } from '../fixtures/binance-signed-double';
import { dbTargets } from '../helpers/db';
import { signUp, type Api } from './support/api';
import { recordFigures } from './support/figures';
import { KILL_ROUNDS, kills, midBurst, runKillScenario, useKillServer } from './support/kill-scenario';
import { between } from './support/mode';
import { OrderBook, orderClient, startBurst } from './support/orders';
import { auditVenue, readPositions } from './support/venue-audit';
import { binancePlaced, binancePositions, signedDoubleSettings } from './support/venues';

const USERS = 6;
const IN_FLIGHT_PER_USER = 3;
/** The server's wait before an order of unknown outcome may be sent again (BINANCE_ORDER_SETTLE_MS). */
const SETTLE_MS = 2_000;
/** The pairs the Binance double lists. */
const SYMBOLS = ['ETH/USDT', 'BTC/USDT'] as const;

const keyOf = (user: number) => ({
  apiKey: `KillLiveKey${user}0123456789abcdef`,
  secret: `kill-live-secret-${user}-0123456789`,
});

describe.each(dbTargets())('kill -9 during a burst of live orders, on %s', (name) => {
  let binance: SignedDouble;
  let users: Api[] = [];
  let userIds: string[] = [];
  const book = new OrderBook();
  const problems: string[] = [];

  const scenario = useKillServer(name, {
    // The exchange lives in this process: it outlives every kill of the server, as Binance would.
    env: async () => {
      binance = await startSignedDouble();
      return { ...signedDoubleSettings(binance), BINANCE_ORDER_SETTLE_MS: String(SETTLE_MS) };
    },
    setup: async (server) => {
      users = await Promise.all(Array.from({ length: USERS }, (_, i) => signUp(server.base, `live${i}`)));
      userIds = [];
      for (const [i, api] of users.entries()) {
        const key = keyOf(i);
        binance.keys.set(key.apiKey, { ...key, ipRestrict: true });
        const saved = await api.must(ExchangeKey, 'POST', '/exchanges/', {
          exchangeName: 'binance',
          apiKey: key.apiKey,
          secretKey: key.secret,
        });
        const chosen = await api.must(AccountState, 'PUT', '/account', { account: saved.id });
        if (chosen.mode !== 'live') throw new Error(`live${i} is on ${chosen.mode}`);
        userIds.push((await api.must(Me, 'GET', '/users/me')).id);
      }
    },
    teardown: async () => {
      await binance?.close();
    },
  });
  const client = orderClient({
    book,
    problems,
    users: () => users,
    settleMs: SETTLE_MS,
    retries: 3,
  });

  it(`places every acknowledged live order exactly once through ${kills(KILL_ROUNDS)}`, async () => {
    const started = performance.now();
    const { rounds, killedAt } = await runKillScenario({
      server: scenario.server,
      burst: (round) => startBurst({ users, book, perUser: IN_FLIGHT_PER_USER, round, symbols: SYMBOLS }),
      killAt: (burst) => midBurst(burst, between(30, 120)),
      atKill: (burst) => ({ inFlightAtKill: burst.inFlight(), onVenueAtKill: binance.orders.length }),
      restart: ({ round }) => client.recover(round, 40),
    });

    const all = [...book.orders.values()];
    expect(problems, 'retries and replays').toEqual([]);
    expect(
      book.unsettled().map((o) => o.key),
      'keys neither filled nor refused',
    ).toEqual([]);
    expect(
      all.filter((o) => o.orderIds.size > 1).map((o) => `${o.key}: ${[...o.orderIds].join(', ')}`),
      'keys answered with two orders',
    ).toEqual([]);
    const keysOf = new Map<string, string[]>();
    for (const o of all) if (o.order) keysOf.set(o.order.id, [...(keysOf.get(o.order.id) ?? []), o.key]);
    expect(
      [...keysOf].filter(([, keys]) => keys.length > 1),
      'orders answered to two keys',
    ).toEqual([]);

    // The venue: one order per client order id, each key's client order id naming the very order the
    // server answered (id, side, symbol, quantity), nothing else, and positions that are the fills' sum.
    const audit = auditVenue({
      placed: binancePlaced(binance),
      sent: all,
      apiKeyOf: (user) => keyOf(user).apiKey,
      clientIdOf: (o) => clientIdFor(userIds[o.user] ?? '', o.key),
      positions: await readPositions(
        Array.from({ length: USERS }, (_, user) => keyOf(user)),
        SYMBOLS,
        async (key, symbol) => (await binancePositions(binance.url, key)).get(symbol) ?? 0,
      ),
      symbols: SYMBOLS,
      killedAt,
    });
    expect(audit.twice, 'client order ids placed twice on the venue').toEqual([]);
    expect(audit.mismatched, 'answers that differ from the venue').toEqual([]);
    expect(audit.orphans, 'orders on the venue that no key was answered with').toEqual([]);
    expect(audit.positions, 'positions that are not the sum of the fills').toEqual([]);

    const acknowledged = all.filter((o) => o.first?.status === 200);
    const recovered = all.filter((o) => o.order !== null && o.first?.status !== 200);
    recordFigures(`live-orders-kill9-${name}`, {
      db: name,
      rounds: KILL_ROUNDS,
      users: USERS,
      sent: all.length,
      acknowledged: acknowledged.length,
      unacknowledged: all.length - acknowledged.length,
      recovered: recovered.length,
      recoveredPlacedBeforeKill: audit.recoveredPlacedBeforeKill,
      refused: all.filter((o) => o.refusal !== null).length,
      onVenue: binance.orders.length,
      killMs: rounds.map((r) => r.killMs),
      inFlightAtKill: rounds.map((r) => r.inFlightAtKill),
      restartToHealthyMs: rounds.map((r) => r.restartMs),
      perRound: rounds,
      durationMs: Math.round(performance.now() - started),
    });
  }, 600_000);
});
