import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Decision, Rule, RuleAnswerResult } from '../../src/contracts/rules';
import { buildApp } from '../../server/app';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';
import { completedSignal, freshSignalId, ledger } from './rules.support';

interface Node {
  app: FastifyInstance;
  api: FastifyInstance;
}

/**
 * Two servers on one database, each running its rule engine, as two processes would: an answer reaches
 * one while the other decides a headline. Their buses are apart, so that no message on the way between
 * them is what keeps a budget: a lost one must not make a second order pass.
 */
describe.each(dbTargets())('rules on two nodes of one database on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let a: Node;
  let b: Node;

  beforeAll(async () => {
    // The tests decide their own signals: a replayed headline would add decisions of its own.
    t = await startTestApp(target, { MARKET_SIM_TICK_MS: '60000', NEWS_SOURCES: 'webhook' });
    a = { app: t.app, api: t.api };
    let api: FastifyInstance | undefined;
    const app = await buildApp(t.config, { logger: false, database: t.database, onApi: (s) => (api = s) });
    await app.ready();
    if (api === undefined) throw new Error('no /api scope');
    b = { app, api };
  });
  afterAll(async () => {
    await b?.app.close();
    await t.close();
  });

  const call = (node: Node, method: 'GET' | 'POST' | 'PUT', url: string, who: string, payload?: object) =>
    node.app.inject({ method, url, headers: { authorization: who }, ...(payload ? { payload } : {}) });
  /** A trader whose risk envelope is set before either node reads it. */
  const trader = async (name: string, risk: object) => {
    const { authorization } = await signUpAndLogIn(t.app, name);
    const set = await call(a, 'PUT', '/api/rules/risk', authorization, risk);
    expect(set.statusCode, set.body).toBe(200);
    return authorization;
  };
  const addRule = async (who: string, asset: string, amount: number, mode: 'auto' | 'ask') => {
    const res = await call(a, 'POST', '/api/rules/', who, {
      ruleName: `${mode} ${asset}`,
      conditions: { asset },
      action: { type: 'trade', side: 'long', amount_usd: amount },
      mode,
    });
    expect(res.statusCode, res.body).toBe(201);
    await Promise.all([a.api.rules.engine.reload(), b.api.rules.engine.reload()]);
    return res.json() as Rule;
  };
  /** A completed signal about `asset`, decided by `node`'s engine: its id. */
  const decide = async (node: Node, asset: string) => {
    const id = freshSignalId();
    await node.api.rules.engine.evaluate(completedSignal({ id, assets: [asset] }));
    return id;
  };
  const propose = async (who: string, asset: string): Promise<Decision> => {
    const id = await decide(a, asset);
    const row = (await ledger(t, who)).find((d) => d.signal_id === id);
    if (row?.outcome !== 'asking') throw new Error(`no proposal: ${JSON.stringify(row)}`);
    return row;
  };
  const confirm = (node: Node, who: string, decision: Decision) =>
    call(node, 'POST', `/api/rules/decisions/${decision.id}/answer`, who, { answer: 'confirm', via: 'api' });
  const outcomes = async (who: string) => {
    const rows = await ledger(t, who, '?limit=200');
    return {
      fired: rows.filter((d) => d.outcome === 'fired'),
      budget: rows.filter((d) => d.reason === 'budget'),
      other: rows.filter((d) => d.outcome !== 'fired' && d.reason !== 'budget'),
    };
  };

  /**
   * One ask rule and one automated rule, 200 USDT each, under a budget that fits one; each trader's on
   * coins of their own, so that no one else's rule matches their signals.
   */
  const budgetForOne = async (name: string, asked: string, automated: string) => {
    const who = await trader(name, { daily_budget_usd: 300, cooldown_minutes: 0 });
    await addRule(who, asked, 200, 'ask');
    await addRule(who, automated, 200, 'auto');
    return { who, proposal: await propose(who, asked) };
  };

  it('lets one order through when a confirmation on one node and a decision on the other share a budget that fits one', async () => {
    // The confirmation first, then the other node's decision.
    const first = await budgetForOne('nodes-confirm-first', 'ETH', 'SOL');
    expect((await confirm(b, first.who, first.proposal)).statusCode).toBe(200);
    await decide(a, 'SOL');
    // The decision first, then the confirmation on the other node.
    const second = await budgetForOne('nodes-decide-first', 'BNB', 'XRP');
    await decide(a, 'XRP');
    expect((await confirm(b, second.who, second.proposal)).statusCode).toBe(200);
    // Both at once.
    const third = await budgetForOne('nodes-at-once', 'LINK', 'AVAX');
    const [answered] = await Promise.all([confirm(b, third.who, third.proposal), decide(a, 'AVAX')]);
    expect(answered.statusCode).toBe(200);

    for (const { who } of [first, second, third]) {
      const { fired, budget, other } = await outcomes(who);
      expect(fired).toHaveLength(1);
      expect(budget).toHaveLength(1);
      expect(budget[0]?.detail).toMatch(/would pass the daily budget of 300 USDT/);
      expect(other.map((d) => d.outcome)).toEqual([]);
    }
  });

  it('holds the budget for thirty confirmations at once, half of them on each node, and uses it', async () => {
    const who = await trader('nodes-thirty', {
      daily_budget_usd: 550,
      cooldown_minutes: 0,
      max_positions: 50,
    });
    await addRule(who, 'ADA', 100, 'ask');
    const proposals: Decision[] = [];
    for (let i = 0; i < 30; i++) proposals.push(await propose(who, 'ADA'));
    const answers = await Promise.all(proposals.map((p, i) => confirm(i % 2 === 0 ? a : b, who, p)));
    expect(answers.map((r) => r.statusCode)).toEqual(proposals.map(() => 200));
    const messages = answers.map((r) => (r.json() as RuleAnswerResult).message);
    expect(messages.filter((m) => m.startsWith('Placed LONG'))).toHaveLength(5);
    const { fired, budget, other } = await outcomes(who);
    expect(fired).toHaveLength(5);
    expect(budget).toHaveLength(25);
    expect(other).toEqual([]);
    const spent = fired.reduce((sum, d) => sum + (d.notional ?? d.amount_usd), 0);
    expect(spent).toBeLessThanOrEqual(550);
  });
});
