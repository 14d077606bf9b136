import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ExchangeKey } from '../../src/contracts/exchanges';
import { Rule, RiskState, type Decision } from '../../src/contracts/rules';
import { startSignedDouble, type SignedDouble } from '../fixtures/binance-signed-double';
import { dbTargets } from '../helpers/db';
import { Api, signUp } from './support/api';
import { recordFigures } from './support/figures';
import { runKillScenario, useKillServer } from './support/kill-scenario';
import { sleep } from './support/mode';
import { newsItem } from './support/news';
import { allDecisions } from './support/reads';
import { signedDoubleSettings } from './support/venues';

const KEY = { apiKey: 'RulesExitKillKey0123456789abcdef', secret: 'rules-exit-kill-secret-0123456789' };
const PASSWORD = 'reliable Pa55word!';
/** Each venue call may take this long; a close claimed longer ago than 5 of them and 3 settle times (plus 10 s) is a dead process's. */
const TIMEOUT_MS = 2_000;
const SETTLE_MS = 1_000;
/** Past the stale age, the restarted server's sweep (every 5 s) takes the close over. */
const RECOVER_MS = 90_000;

/**
 * A rule's exit on a LIVE key (the Binance USD-M double, which outlives every kill as Binance would) is
 * claimed and its close under way when the server is killed with SIGKILL: after the restart the exit
 * ends closed, with exactly one reduce on the venue, whether the reduce had filled (its answer lost) or
 * had not been sent yet.
 */
describe.each(dbTargets())('kill -9 while a rule exit closes on a live key, on %s', (name) => {
  const token = randomBytes(16).toString('hex');
  let binance: SignedDouble;
  let api: Api;
  let webhook: Api;
  let item = 0;

  const scenario = useKillServer(name, {
    env: async () => {
      binance = await startSignedDouble();
      binance.prices.set('SOLUSDT', 150);
      binance.symbols.SOLUSDT = { step: '1', minQty: '1', maxQty: '100000', minNotional: '5' };
      binance.keys.set(KEY.apiKey, { ...KEY, ipRestrict: true });
      return {
        NEWS_SOURCES: 'webhook',
        INGEST_TOKEN: token,
        ...signedDoubleSettings(binance),
        BINANCE_TIMEOUT_MS: String(TIMEOUT_MS),
        BINANCE_ORDER_SETTLE_MS: String(SETTLE_MS),
      };
    },
    setup: async (server) => {
      webhook = new Api(server.base);
      webhook.token = token;
      api = await signUp(server.base, 'exitkill');
      const saved = await api.must(ExchangeKey, 'POST', '/exchanges/', {
        exchangeName: 'binance',
        apiKey: KEY.apiKey,
        secretKey: KEY.secret,
      });
      await api.must(z.unknown(), 'POST', '/auth/step-up', { password: PASSWORD });
      await api.must(RiskState, 'PUT', '/rules/risk', {
        live_max_order_usd: 1_000,
        cooldown_minutes: 0,
        max_age_seconds: 3600,
      });
      await api.must(Rule, 'POST', '/rules/', {
        ruleName: 'SOL any news, live',
        conditions: { asset: 'SOL' },
        action: { type: 'trade', side: 'long', amount_usd: 300, account: saved.id },
        isActive: true,
      });
    },
    teardown: async () => {
      await binance?.close();
    },
  });

  /** A SOL story through the webhook; answers the decision it fired (2 SOL bought on the key). */
  const fired = async (): Promise<Decision> => {
    // Every third item of the scenario's news is about SOL.
    const sent = newsItem(item * 3);
    item += 1;
    await api.must(z.unknown(), 'POST', '/auth/step-up', { password: PASSWORD });
    const off = await api.send('POST', '/rules/kill-switch', { on: false });
    expect(off?.status).toBe(200);
    const before = new Set((await allDecisions(api)).map((d) => d.id));
    const answer = await webhook.send('POST', '/signals/ingest', { ...sent });
    expect(answer?.status).toBe(202);
    for (let i = 0; i < 300; i++) {
      const found = (await allDecisions(api)).find((d) => !before.has(d.id) && d.outcome !== 'pending');
      if (found !== undefined) {
        expect(found, JSON.stringify(found)).toMatchObject({ outcome: 'fired', quantity: 2 });
        return found;
      }
      await sleep(100);
    }
    throw new Error('the rule did not fire');
  };
  const reducesOf = (d: Decision) =>
    binance.orders.filter((o) => o.reduceOnly && o.clientOrderId.startsWith(`sc-exit-${d.id}`));
  const positionOf = (symbol: string) => {
    const net = binance.orders
      .filter((o) => o.apiKey === KEY.apiKey && o.symbol === symbol)
      .reduce((sum, o) => sum + (o.side === 'BUY' ? 1 : -1) * Number(o.executed), 0);
    return Math.round(net * 1e8) / 1e8;
  };
  /**
   * Flattens and, once `ready` says the close is under way, kills the server (the flatten's answer is
   * cut) and starts it again; answers the restart's ms.
   */
  const killDuringClose = async (ready: () => boolean): Promise<number> => {
    const { rounds } = await runKillScenario({
      server: scenario.server,
      rounds: 1,
      burst: () => ({ done: api.send('POST', '/rules/flatten') }),
      killAt: async () => {
        for (let i = 0; i < 1_000 && !ready(); i++) await sleep(5);
        expect(ready(), 'the close reached the venue').toBe(true);
      },
    });
    return rounds[0]?.restartMs ?? NaN;
  };
  const closedAfterRestart = async (d: Decision): Promise<{ decision: Decision; ms: number }> => {
    const started = performance.now();
    for (;;) {
      const now = (await allDecisions(api)).find((x) => x.id === d.id);
      if (now?.exit?.includes('; closed ') === true)
        return { decision: now, ms: Math.round(performance.now() - started) };
      if (performance.now() - started > RECOVER_MS)
        throw new Error(
          `not closed after the restart: ${JSON.stringify(now)}\n${scenario.server.output().slice(-4000)}`,
        );
      await sleep(250);
    }
  };

  it('the reduce filled but its answer was lost: closed with that fill, never sent again', async () => {
    const d = await fired();
    expect(positionOf('SOLUSDT')).toBe(2);
    // Binance fills the reduce and holds its answer: the server is killed while it waits.
    binance.fault({ route: 'POST /fapi/v1/order', afterFill: true, delayMs: 60_000 });
    const restartMs = await killDuringClose(() => reducesOf(d).length > 0);
    const { decision, ms } = await closedAfterRestart(d);
    expect(decision.exit).toMatch(/^flattened \(rules flatten\); closed 2 at 150$/);
    expect(reducesOf(d)).toHaveLength(1);
    expect(positionOf('SOLUSDT')).toBe(0);
    recordFigures(`rules-exit-kill9-filled-${name}`, { db: name, restartMs, recoveredMs: ms });
  }, 240_000);

  it('the server died before the reduce was sent: sent once after the restart', async () => {
    const d = await fired();
    expect(positionOf('SOLUSDT')).toBe(2);
    // The reduce's read of the position is held: the server is killed before any order goes.
    const asked = binance.requests.length;
    binance.fault({ route: 'GET /fapi/v3/positionRisk', delayMs: 60_000 });
    const restartMs = await killDuringClose(() =>
      binance.requests.slice(asked).some((r) => r.startsWith('GET /fapi/v3/positionRisk')),
    );
    expect(reducesOf(d)).toHaveLength(0);
    const { decision, ms } = await closedAfterRestart(d);
    expect(decision.exit).toMatch(/^flattened \(rules flatten\); closed 2 at 150$/);
    expect(reducesOf(d)).toHaveLength(1);
    expect(positionOf('SOLUSDT')).toBe(0);
    recordFigures(`rules-exit-kill9-unsent-${name}`, { db: name, restartMs, recoveredMs: ms });
  }, 240_000);
});
