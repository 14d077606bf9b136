import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { Rule, RiskState } from '../../src/contracts/rules';
import { OrderResponse, pairOf } from '../../src/contracts/trading';
import { dbTargets } from '../helpers/db';
import { Api, describe as answerText, signUp } from './support/api';
import { allDecisions, netBySymbol, signedPositions } from './support/reads';
import { recordFigures } from './support/figures';
import { KILL_ROUNDS, kills, midBurst, runKillScenario, useKillServer } from './support/kill-scenario';
import { between } from './support/mode';
import { ASSETS, startNewsBurst, type SentItem } from './support/news';
import { catchUp, decidedTwice, resendCut } from './support/rules';
import { storedOrders } from './support/stored';

const USERS = 4;
const AMOUNT_USD = 150;
/**
 * A decision a kill left `pending` is resolved by the engine a minute after it was taken (it looks the
 * order up by its key), so catching up after the last kill takes a little over a minute.
 */
const CATCH_UP_MS = 150_000;

describe.each(dbTargets())('kill -9 while rules fire, on %s', (name) => {
  const token = randomBytes(16).toString('hex');
  let users: Api[] = [];
  let webhook: Api;

  const scenario = useKillServer(name, {
    env: () => ({ NEWS_SOURCES: 'webhook', INGEST_TOKEN: token }),
    setup: async (server) => {
      webhook = new Api(server.base);
      webhook.token = token;
      users = await Promise.all(Array.from({ length: USERS }, (_, i) => signUp(server.base, `rules${i}`)));
      await Promise.all(
        users.map(async (api) => {
          // Wide enough that every match fires: no cooldown, a budget and an age limit the run stays within.
          await api.must(RiskState, 'PUT', '/rules/risk', {
            daily_budget_usd: 10_000_000,
            cooldown_minutes: 0,
            max_positions: 10,
            max_age_seconds: 3600,
          });
          for (const asset of ASSETS) {
            await api.must(Rule, 'POST', '/rules/', {
              ruleName: `${asset.ticker} any news`,
              conditions: { asset: asset.ticker },
              action: { type: 'trade', side: asset.side, amount_usd: AMOUNT_USD },
              isActive: true,
            });
          }
        }),
      );
    },
  });

  it(`fires each rule once per signal through ${kills(KILL_ROUNDS)}`, async () => {
    const started = performance.now();
    const sent: SentItem[] = [];
    const problems: string[] = [];
    let from = 0;

    const { rounds, killedAt } = await runKillScenario({
      server: scenario.server,
      burst: () => {
        from = sent.length;
        return startNewsBurst({ webhook, sent, concurrency: 3 });
      },
      killAt: (burst) => midBurst(burst, between(15, 45)),
      restart: async () => {
        const pendingAfterRestart = (await Promise.all(users.map(allDecisions)))
          .flat()
          .filter((d) => d.outcome === 'pending').length;
        // Every item whose answer the kill cut is sent again once, with its external id.
        const unacknowledged = await resendCut(webhook, sent.slice(from), problems);
        return {
          sent: sent.length - from,
          acknowledged: sent.length - from - unacknowledged.length,
          unacknowledged: unacknowledged.length,
          retriedCreated: unacknowledged.filter((s) => s.outcome?.result === 'created').length,
          retriedDuplicate: unacknowledged.filter((s) => s.outcome?.result === 'duplicate').length,
          pendingAfterRestart,
        };
      },
    });
    expect(problems, 'retried items').toEqual([]);

    // The engine catches up: every signal analysed, every match decided (none left pending).
    const { snapshot, missing, catchUpMs } = await catchUp(webhook, users, CATCH_UP_MS);
    expect(missing.slice(0, 20), `still undecided after ${catchUpMs} ms`).toEqual([]);

    // Every item the webhook took is a stored signal.
    const stored = new Set(snapshot.signals.map((s) => s.id));
    const created = sent.flatMap((s) =>
      s.outcome?.result === 'created' && s.outcome.id !== null ? [s.outcome.id] : [],
    );
    expect(
      created.filter((id) => !stored.has(id)),
      'acknowledged signals missing',
    ).toEqual([]);

    const all = snapshot.ledgers.flat();
    expect(decidedTwice(snapshot.ledgers), '(rule, signal) decided twice').toEqual([]);
    // Fired, or skipped because the kill interrupted it before its order was sent (never sent late).
    const odd = all.filter((d) => d.outcome !== 'fired' && d.reason !== 'stale');
    expect(
      odd.map((d) => `${d.id} ${d.outcome} ${d.reason} ${d.detail}`),
      'decisions neither fired nor interrupted',
    ).toEqual([]);
    const fired = all.filter((d) => d.outcome === 'fired');

    // Each fired decision's order exists once: its key (rule and signal) answers that very order.
    for (const [user, api] of users.entries()) {
      for (const d of snapshot.ledgers[user]?.filter((x) => x.outcome === 'fired') ?? []) {
        const answer = await api.send(
          'POST',
          '/orders',
          { symbol: pairOf(d.symbol), side: d.side, type: 'market', amount: d.amount_usd },
          { headers: { 'idempotency-key': `rule-${d.rule_id}-${d.signal_id}` } },
        );
        const order = answer?.status === 200 ? OrderResponse.safeParse(answer.body) : null;
        if (!order?.success || order.data.id !== d.order_id || order.data.quantity !== d.quantity) {
          problems.push(`decision ${d.id}: order ${d.order_id} answered ${answerText(answer)}`);
        }
      }
      const expected = netBySymbol(
        (snapshot.ledgers[user] ?? [])
          .filter((d) => d.outcome === 'fired')
          .map((d) => ({ symbol: pairOf(d.symbol), buy: d.side === 'long', quantity: d.quantity ?? NaN })),
      );
      expect(await signedPositions(api), `positions of rules${user}`).toEqual(expected);
    }
    expect(problems, 'fired decisions whose key does not answer their order').toEqual([]);

    // The database: one fill per fired decision, and no other.
    await scenario.server.stop();
    const { fills } = await storedOrders(scenario.database.open);
    expect(fills.map((f) => f.orderId).sort(), 'fills in the ledger vs fired decisions').toEqual(
      fired.map((d) => d.order_id).sort(),
    );

    const acknowledged = sent.filter((s) => s.first !== null && s.first.status === 202).length;
    recordFigures(`rules-kill9-${name}`, {
      db: name,
      rounds: KILL_ROUNDS,
      users: USERS,
      rulesPerUser: ASSETS.length,
      itemsSent: sent.length,
      acknowledged,
      unacknowledged: sent.length - acknowledged,
      signals: snapshot.signals.length,
      decisions: all.length,
      fired: fired.length,
      interruptedNotSent: all.filter((d) => d.reason === 'stale').length,
      ordersBeforeLastKill: fills.filter((f) => f.createdAt.getTime() < (killedAt.at(-1) ?? 0)).length,
      killMs: rounds.map((r) => r.killMs),
      restartToHealthyMs: rounds.map((r) => r.restartMs),
      pendingAfterRestart: rounds.map((r) => r.pendingAfterRestart),
      catchUpMs,
      perRound: rounds,
      durationMs: Math.round(performance.now() - started),
    });
  }, 600_000);
});
