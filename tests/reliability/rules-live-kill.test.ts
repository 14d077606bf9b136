import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Me } from '../../src/contracts/auth';
import { ExchangeKey } from '../../src/contracts/exchanges';
import { Rule, RiskState } from '../../src/contracts/rules';
import { ruleOrderKey } from '../../server/modules/rules/rule-engine';
import { clientIdFor } from '../../server/modules/trading/trading.service';
import { startSignedDouble, type SignedDouble } from '../fixtures/binance-signed-double';
import { dbTargets } from '../helpers/db';
import { Api, signUp } from './support/api';
import { recordFigures } from './support/figures';
import { KILL_ROUNDS, kills, midBurst, runKillScenario, useKillServer } from './support/kill-scenario';
import { between } from './support/mode';
import { ASSETS, startNewsBurst, type SentItem } from './support/news';
import { catchUp, decidedTwice, resendCut } from './support/rules';
import { signedDoubleSettings } from './support/venues';

const USERS = 3;
const AMOUNT_USD = 400;
/** The server's wait before an order of unknown outcome is looked up again (BINANCE_ORDER_SETTLE_MS). */
const SETTLE_MS = 2_000;
/** A decision a kill left pending is looked up a minute after it was taken: catching up takes a little more. */
const CATCH_UP_MS = 150_000;
/** What the rules trade, as the double lists them (it starts with BTC and ETH only). */
const LISTED = {
  SOLUSDT: { price: 150, filters: { step: '1', minQty: '1', maxQty: '100000', minNotional: '5' } },
  XRPUSDT: { price: 0.6, filters: { step: '1', minQty: '1', maxQty: '10000000', minNotional: '5' } },
};

const keyOf = (user: number) => ({
  apiKey: `RulesKillKey${user}0123456789abcdef`,
  secret: `rules-kill-secret-${user}-0123456789`,
});

/**
 * Rules bound to each user's LIVE key (the Binance USD-M double, which outlives every kill as Binance
 * would) fire through kill -9 of the server: each (rule, signal) is at most one order on the venue, the
 * ledger names it, and nothing the ledger does not know of was placed.
 */
describe.each(dbTargets())('kill -9 while rules fire on live keys, on %s', (name) => {
  const token = randomBytes(16).toString('hex');
  let binance: SignedDouble;
  let users: Api[] = [];
  let userIds: string[] = [];
  let webhook: Api;

  const scenario = useKillServer(name, {
    env: async () => {
      binance = await startSignedDouble();
      for (const [symbol, { price, filters }] of Object.entries(LISTED)) {
        binance.prices.set(symbol, price);
        binance.symbols[symbol] = filters;
      }
      return {
        NEWS_SOURCES: 'webhook',
        INGEST_TOKEN: token,
        ...signedDoubleSettings(binance),
        BINANCE_ORDER_SETTLE_MS: String(SETTLE_MS),
      };
    },
    setup: async (server) => {
      webhook = new Api(server.base);
      webhook.token = token;
      users = await Promise.all(
        Array.from({ length: USERS }, (_, i) => signUp(server.base, `liverules${i}`)),
      );
      userIds = [];
      for (const [i, api] of users.entries()) {
        const key = keyOf(i);
        binance.keys.set(key.apiKey, { ...key, ipRestrict: true });
        const saved = await api.must(ExchangeKey, 'POST', '/exchanges/', {
          exchangeName: 'binance',
          apiKey: key.apiKey,
          secretKey: key.secret,
        });
        // Going live and loosening the live limits both ask "Confirm it's you".
        await api.must(z.unknown(), 'POST', '/auth/step-up', { password: 'reliable Pa55word!' });
        await api.must(RiskState, 'PUT', '/rules/risk', {
          daily_budget_usd: 10_000_000,
          live_daily_budget_usd: 10_000_000,
          live_max_order_usd: 1_000,
          cooldown_minutes: 0,
          max_positions: 10,
          max_age_seconds: 3600,
        });
        for (const asset of ASSETS) {
          await api.must(Rule, 'POST', '/rules/', {
            ruleName: `${asset.ticker} any news, live`,
            conditions: { asset: asset.ticker },
            action: { type: 'trade', side: asset.side, amount_usd: AMOUNT_USD, account: saved.id },
            isActive: true,
          });
        }
        userIds.push((await api.must(Me, 'GET', '/users/me')).id);
      }
    },
    teardown: async () => {
      await binance?.close();
    },
  });

  it(`places each (rule, signal) once on the venue through ${kills(KILL_ROUNDS)}`, async () => {
    const started = performance.now();
    const sent: SentItem[] = [];
    const problems: string[] = [];
    let from = 0;

    const { rounds } = await runKillScenario({
      server: scenario.server,
      burst: () => {
        from = sent.length;
        return startNewsBurst({ webhook, sent, concurrency: 3 });
      },
      // The kill lands anywhere: mid-request, mid-order, mid-ledger write.
      killAt: (burst) => midBurst(burst, between(10, 30)),
      atKill: () => ({ ordersAtKill: binance.orders.length }),
      restart: async () => {
        const unacknowledged = await resendCut(webhook, sent.slice(from), problems);
        return { sent: sent.length - from, unacknowledged: unacknowledged.length };
      },
    });
    expect(problems, 'retried items').toEqual([]);

    const { snapshot, missing, catchUpMs } = await catchUp(webhook, users, CATCH_UP_MS);
    expect(missing.slice(0, 20), `still undecided after ${catchUpMs} ms`).toEqual([]);

    const all = snapshot.ledgers.flat();
    expect(decidedTwice(snapshot.ledgers), '(rule, signal) decided twice').toEqual([]);
    const odd = all.filter((d) => d.outcome !== 'fired' && d.reason !== 'stale');
    expect(
      odd.map((d) => `${d.id} ${d.outcome} ${d.reason} ${d.detail}`),
      'decisions neither fired nor interrupted before their order was sent',
    ).toEqual([]);

    // The venue: every order is one decision's, sent once under its client id; a fired decision's order
    // is on its user's key with the ledger's order id and quantity; a decision not fired placed nothing.
    const byClientId = new Map<string, typeof binance.orders>();
    for (const o of binance.orders)
      byClientId.set(o.clientOrderId, [...(byClientId.get(o.clientOrderId) ?? []), o]);
    expect(
      [...byClientId].filter(([, os]) => os.length > 1).map(([id]) => id),
      'client ids sent twice',
    ).toEqual([]);
    const known = new Set<string>();
    for (const [user, ledger] of snapshot.ledgers.entries()) {
      const userId = userIds[user] ?? '';
      for (const d of ledger) {
        const clientId = clientIdFor(userId, ruleOrderKey(d.rule_id, String(d.signal_id)));
        known.add(clientId);
        const [order] = byClientId.get(clientId) ?? [];
        if (d.outcome === 'fired') {
          expect(d.account_mode, `decision ${d.id}`).toBe('live');
          if (order === undefined) problems.push(`decision ${d.id} fired, but its order is not on the venue`);
          else if (
            String(order.orderId) !== d.order_id ||
            Number(order.executed) !== d.quantity ||
            order.apiKey !== keyOf(user).apiKey
          )
            problems.push(
              `decision ${d.id}: ledger ${d.order_id} × ${d.quantity}, venue ${JSON.stringify(order)}`,
            );
        } else if (order !== undefined) {
          problems.push(`decision ${d.id} ${d.outcome} (${d.reason}), yet its order is on the venue`);
        }
      }
    }
    const strays = binance.orders.filter((o) => !known.has(o.clientOrderId));
    expect(
      strays.map((o) => `${o.clientOrderId} ${o.symbol} ${o.side}`),
      'orders no decision knows of',
    ).toEqual([]);
    expect(problems).toEqual([]);
    const fired = all.filter((d) => d.outcome === 'fired');
    expect(fired.length, 'rules fired on the live keys').toBeGreaterThan(0);

    recordFigures(`rules-kill9-live-${name}`, {
      db: name,
      rounds: KILL_ROUNDS,
      users: USERS,
      rulesPerUser: ASSETS.length,
      itemsSent: sent.length,
      signals: snapshot.signals.length,
      decisions: all.length,
      fired: fired.length,
      interruptedNotSent: all.filter((d) => d.reason === 'stale').length,
      venueOrders: binance.orders.length,
      catchUpMs,
      perRound: rounds,
      durationMs: Math.round(performance.now() - started),
    });
  }, 600_000);
});
