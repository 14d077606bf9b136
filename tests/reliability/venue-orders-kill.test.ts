import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { Me } from '../../src/contracts/auth';
import { ExchangeKey } from '../../src/contracts/exchanges';
import { AccountState } from '../../src/contracts/trading';
import type { VenueName } from '../../src/contracts/venues';
import { clientIdFor } from '../../server/modules/trading/trading.service';
import { dbTargets } from '../helpers/db';
import { signUp, type Api } from './support/api';
import { recordFigures } from './support/figures';
import { KILL_ROUNDS, kills, runKillScenario, useKillServer } from './support/kill-scenario';
import { between, sleep } from './support/mode';
import { OrderBook, orderClient, startBurst } from './support/orders';
import { auditVenue, readPositions } from './support/venue-audit';
import { KILL_SYMBOLS, startVenue, VENUE_NAMES, type VenueUnderTest } from './support/venues';

/** Three per venue: nine sign-ups, within the server's ten a minute from one address. */
const USERS_PER_VENUE = 3;
const IN_FLIGHT_PER_USER = 4;
/** The server's wait before an order of unknown outcome may be sent again (BINANCE_ORDER_SETTLE_MS). */
const SETTLE_MS = 2_000;
/** Orders per venue and round the venue fills and never answers before the kill. */
const HELD = 2;

/**
 * The live-order burst of live-orders-kill.test.ts on the three venues at once: users on Binance, Bybit
 * and OKX keep orders in flight against each venue's double (which outlives every kill of the server,
 * as the venue would) while the server is killed with SIGKILL and started again. Right before each kill,
 * each venue holds the answers to a few orders it filled, so that every round leaves orders placed on
 * every venue and never answered: on OKX, whose clOrdId is unique only among open orders, only a look-up
 * before sending again keeps their retries from being second orders.
 */
describe.each(dbTargets())('kill -9 during a burst of live orders on three venues, on %s', (name) => {
  const venues = new Map<VenueName, VenueUnderTest>();
  let users: Api[] = [];
  const venueOf: VenueName[] = [];
  const userIds: string[] = [];
  const book = new OrderBook();
  const problems: string[] = [];
  let killedAt: number[] = [];
  let rounds: Record<string, number>[] = [];
  let ranMs: number | null = null;
  const keyOf = (user: number) => ({
    apiKey: `Kill9${venueOf[user] ?? ''}${user}0123456789abcdef`,
    secret: `kill-nine-secret-${user}-0123456789`,
  });
  const venue = (v: VenueName) => {
    const found = venues.get(v);
    if (found === undefined) throw new Error(`no ${v} double`);
    return found;
  };

  const scenario = useKillServer(name, {
    env: async () => {
      for (const [v, started] of await Promise.all(
        VENUE_NAMES.map(async (v) => [v, await startVenue(v)] as const),
      )) {
        venues.set(v, started);
      }
      return {
        ...Object.assign(
          {},
          ...[...venues.values()].map((v) => ({ ...v.double.settings, ...v.demoSettings })),
        ),
        BINANCE_ORDER_SETTLE_MS: String(SETTLE_MS),
      };
    },
    setup: async (server) => {
      venueOf.push(...VENUE_NAMES.flatMap((v) => Array.from({ length: USERS_PER_VENUE }, () => v)));
      users = await Promise.all(venueOf.map((v, i) => signUp(server.base, `kill9${v}${i}`)));
      for (const [i, api] of users.entries()) {
        const v = venue(venueOf[i] ?? 'binance');
        const body = v.double.addKey({
          ...keyOf(i),
          balance: 100_000,
          ...v.keyExtras,
        });
        const saved = await api.must(ExchangeKey, 'POST', '/exchanges/', body);
        const chosen = await api.must(AccountState, 'PUT', '/account', { account: saved.id });
        if (chosen.mode !== 'live' || chosen.venue !== v.double.venue) {
          throw new Error(`user ${i} is on ${chosen.venue} ${chosen.mode}, not ${v.double.venue} live`);
        }
        userIds.push((await api.must(Me, 'GET', '/users/me')).id);
      }
    },
    teardown: async () => {
      await Promise.all([...venues.values()].map((v) => v.double.close()));
    },
  });
  const client = orderClient({
    book,
    problems,
    users: () => users,
    settleMs: SETTLE_MS,
    retries: 3,
  });

  /** Makes the next HELD orders on each venue fill without an answer; resolves once they are placed. */
  const holdAnswers = async () => {
    const before = new Map([...venues].map(([v, u]) => [v, u.placed().length]));
    for (const u of venues.values()) for (let n = 0; n < HELD; n++) u.double.failNextOrder('timeout');
    const deadline = performance.now() + 5_000;
    const pending = () => [...venues].filter(([v, u]) => u.placed().length < (before.get(v) ?? 0) + HELD);
    while (pending().length > 0) {
      if (performance.now() > deadline) {
        throw new Error(
          `no ${HELD} orders reached ${pending()
            .map(([v]) => v)
            .join(', ')} in 5 s`,
        );
      }
      await sleep(10);
    }
  };

  it(`answers every live order once on every venue through ${kills(KILL_ROUNDS)}`, async () => {
    const started = performance.now();
    ({ rounds, killedAt } = await runKillScenario({
      server: scenario.server,
      burst: (round) =>
        startBurst({ users, book, perUser: IN_FLIGHT_PER_USER, round, symbols: KILL_SYMBOLS }),
      killAt: async (burst) => {
        await burst.acknowledged(between(60, 150));
        await holdAnswers();
        await sleep(between(0, 100));
      },
      atKill: (burst) => ({ inFlightAtKill: burst.inFlight() }),
      restart: ({ round }) => client.recover(round, 60),
    }));
    ranMs = Math.round(performance.now() - started);

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
    for (const o of all) {
      if (o.order === null) continue;
      const id = `${venueOf[o.user]}|${o.order.id}`;
      keysOf.set(id, [...(keysOf.get(id) ?? []), o.key]);
    }
    expect(
      [...keysOf].filter(([, keys]) => keys.length > 1),
      'orders answered to two keys',
    ).toEqual([]);
  }, 600_000);

  it.each(VENUE_NAMES)(
    '%s holds each asked order once, as answered, and the position of the fills',
    async (v) => {
      if (ranMs === null) throw new Error('the burst did not run to its end');
      const u = venue(v);
      const sent = [...book.orders.values()].filter((o) => venueOf[o.user] === v);
      const keys = venueOf.flatMap((w, user) => (w === v ? [keyOf(user)] : []));
      const placed = u.placed();
      const audit = auditVenue({
        placed,
        sent,
        apiKeyOf: (user) => keyOf(user).apiKey,
        clientIdOf: (o) => u.venueClientId(clientIdFor(userIds[o.user] ?? '', o.key)),
        positions: await readPositions(keys, KILL_SYMBOLS, u.position),
        symbols: KILL_SYMBOLS,
        killedAt,
      });
      expect(audit.twice, 'client ids placed twice on the venue').toEqual([]);
      expect(audit.mismatched, 'answers that differ from the venue').toEqual([]);
      expect(audit.orphans, 'orders on the venue that no key was answered with').toEqual([]);
      expect(audit.positions, 'positions that are not the sum of the fills').toEqual([]);
      expect(
        sent.filter((o) => o.order !== null && o.order.account.venue !== v).map((o) => o.key),
        'fills naming another venue',
      ).toEqual([]);
      // Every round left HELD orders placed and unanswered on the venue: each came back through a retry.
      expect(
        audit.recoveredPlacedBeforeKill,
        'orders placed before a kill, answered after it',
      ).toBeGreaterThanOrEqual(HELD * KILL_ROUNDS);

      const acknowledged = sent.filter((o) => o.first?.status === 200);
      recordFigures(`venue-orders-kill9-${v}-${name}`, {
        db: name,
        venue: v,
        rounds: KILL_ROUNDS,
        users: USERS_PER_VENUE,
        sent: sent.length,
        acknowledged: acknowledged.length,
        unacknowledged: sent.length - acknowledged.length,
        recovered: sent.filter((o) => o.order !== null && o.first?.status !== 200).length,
        recoveredPlacedBeforeKill: audit.recoveredPlacedBeforeKill,
        refused: sent.filter((o) => o.refusal !== null).length,
        onVenue: placed.length,
        /** The rounds across the three venues: one server, one kill each. */
        perRoundAllVenues: rounds,
        durationMs: ranMs,
      });
    },
  );
});
