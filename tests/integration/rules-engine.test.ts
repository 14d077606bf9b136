import type { Signal } from '../../src/contracts/signals';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Rule } from '../../src/contracts/rules';
import type { Position } from '../../src/contracts/trading';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';
import { TOKEN } from './news.support';
import { completedSignal, freshSignalId, ledger, until } from './rules.support';
import { LOCAL_ENGINE_VERSION } from '../../server/modules/analysis/local-analyzer';
import { RulesRepo } from '../../server/modules/rules/rules.repo';
import { ruleDecisions, users } from '../../server/db/schema';
import { appError } from '../../server/plugins/errors';
import { eq } from 'drizzle-orm';

const ENV = { NEWS_SOURCES: 'webhook', INGEST_TOKEN: TOKEN };

describe.each(dbTargets())('rule engine on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(target, ENV);
  });
  afterAll(() => t.close());

  const addRule = async (who: string, body: object): Promise<Rule> => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/rules/',
      headers: { authorization: who },
      payload: body,
    });
    if (res.statusCode !== 201) throw new Error(res.body);
    return res.json() as Rule;
  };
  /** A rule that opens `amount` USDT long on any news naming `asset`. */
  const longOn = (who: string, asset: string, ruleName = `any ${asset}`, amount = 150): Promise<Rule> =>
    addRule(who, {
      ruleName,
      conditions: { asset },
      action: { type: 'trade', side: 'long', amount_usd: amount },
      isActive: true,
    });
  /** A daily budget of `usd` for automated orders, without a cooldown between them. */
  const budget = (who: string, usd: number) =>
    t.app.inject({
      method: 'PUT',
      url: '/api/rules/risk',
      headers: { authorization: who },
      payload: { daily_budget_usd: usd, cooldown_minutes: 0 },
    });
  const positions = async (who: string) =>
    (await t.app.inject({ url: '/api/positions', headers: { authorization: who } })).json() as Position[];
  const ingest = (content: string, source_name = 'CoinDesk') =>
    t.app.inject({
      method: 'POST',
      url: '/api/signals/ingest',
      headers: { authorization: `Bearer ${TOKEN}` },
      payload: { content, source_name },
    });

  it('fires one order for a matching signal from the webhook, and none for the same story again', async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'engine-e2e');
    const rule = await addRule(authorization, {
      ruleName: 'SOL good news',
      conditions: { asset: 'SOL', sentiment: 'positive', min_impact: 50, max_impact: 100 },
      action: { type: 'trade', side: 'long', amount_usd: 200 },
      isActive: true,
    });
    expect((await ingest('Coinbase will list SOL perpetual futures with 20x leverage')).statusCode).toBe(202);
    const [fired] = await until(async () => {
      const rows = await ledger(t, authorization);
      return rows.some((r) => r.outcome !== 'pending') ? rows : undefined;
    });
    expect(fired).toMatchObject({
      rule_id: rule.id,
      rule_version: 1,
      asset: 'SOL',
      symbol: 'SOLUSDT',
      side: 'long',
      outcome: 'fired',
      reason: null,
      // The analyzer and its version, so the decision can be traced to the model that made it.
      engine: `local ${LOCAL_ENGINE_VERSION}`,
      sentiment: 'positive',
    });
    expect(fired?.order_id).toMatch(/\d+/);
    expect(fired?.latency_ms).toBeGreaterThanOrEqual(0);
    expect(fired?.notional).toBeGreaterThan(150);
    const open = await positions(authorization);
    expect(open.map((p) => [p.symbol, p.side])).toEqual([['SOL/USDT', 'long']]);

    // The same story from another outlet is credited to the first report: no new signal, no new order.
    await ingest('Coinbase will list SOL perpetual futures, with up to 20x leverage', 'The Block');
    await new Promise((r) => setTimeout(r, 1500));
    expect(await ledger(t, authorization)).toHaveLength(1);
    const again = await positions(authorization);
    expect(again[0]?.size).toBe(open[0]?.size);
  });

  it('skips, with the reason, a stale signal, the kill switch, the cooldown and the daily budget', async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'engine-skips');
    await addRule(authorization, {
      ruleName: 'any ETH',
      conditions: { asset: 'ETH' },
      action: { type: 'trade', side: 'short', amount_usd: 300 },
      isActive: true,
    });
    const put = (payload: object) =>
      t.app.inject({ method: 'PUT', url: '/api/rules/risk', headers: { authorization }, payload });
    await put({ daily_budget_usd: 500, cooldown_minutes: 0 });
    const engine = t.api.rules.engine;
    await engine.reload();

    await engine.evaluate(
      completedSignal({ id: freshSignalId(), assets: ['ETH'], receivedAt: Date.now() - 30_000 }),
    );
    await t.app.inject({
      method: 'POST',
      url: '/api/rules/kill-switch',
      headers: { authorization },
      payload: { on: true },
    });
    await engine.evaluate(completedSignal({ id: freshSignalId(), assets: ['ETH'] }));
    await t.app.inject({
      method: 'POST',
      url: '/api/rules/kill-switch',
      headers: { authorization },
      payload: { on: false },
    });
    await engine.evaluate(completedSignal({ id: freshSignalId(), assets: ['ETH'] }));
    await engine.evaluate(completedSignal({ id: freshSignalId(), assets: ['ETH'] }));
    await put({ cooldown_minutes: 15, daily_budget_usd: 10_000 });
    await engine.evaluate(completedSignal({ id: freshSignalId(), assets: ['ETH'] }));

    const rows = (await ledger(t, authorization)).reverse();
    expect(rows.map((r) => [r.outcome, r.reason])).toEqual([
      ['skipped', 'stale'],
      ['skipped', 'kill_switch'],
      ['fired', null],
      ['skipped', 'budget'],
      ['skipped', 'cooldown'],
    ]);
    // Its source gave no publication time: the age runs from its receipt.
    expect(rows[0]?.detail).toMatch(/^received 3[01] s ago \(max 15 s\)$/);
    expect(rows[3]?.detail).toContain('daily budget of 500 USDT');
    const csv = await t.app.inject({ url: '/api/rules/ledger.csv', headers: { authorization } });
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.body.split('\r\n')[0]).toMatch(/^decided_at,rule_name,rule_version,signal_id/);
    expect(csv.body.trim().split('\r\n')).toHaveLength(6);
  });

  it('holds the daily budget across two rules of one signal and across signals decided back to back', async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'engine-budget-burst');
    for (const ruleName of ['DOT first', 'DOT second']) {
      await longOn(authorization, 'DOT', ruleName, 300);
    }
    await budget(authorization, 500);
    const engine = t.api.rules.engine;
    await engine.reload();
    // Two rules match one signal: the second is checked with the first one's order counted.
    await engine.evaluate(completedSignal({ id: freshSignalId(), assets: ['DOT'] }));
    expect((await ledger(t, authorization)).map((r) => r.outcome).sort()).toEqual(['fired', 'skipped']);
    // The next day's budget (a new user, the same rules): three signals decided at once, each claimed
    // while the one before is still being decided.
    const other = await signUpAndLogIn(t.app, 'engine-budget-burst-2');
    await longOn(other.authorization, 'DOT', 'DOT once', 300);
    await budget(other.authorization, 500);
    await engine.reload();
    await Promise.all(
      Array.from({ length: 3 }, () =>
        engine.evaluate(completedSignal({ id: freshSignalId(), assets: ['DOT'] })),
      ),
    );
    const rows = await ledger(t, other.authorization);
    expect(rows.map((r) => [r.outcome, r.reason]).sort()).toEqual([
      ['fired', null],
      ['skipped', 'budget'],
      ['skipped', 'budget'],
    ]);
  });

  it('fires what the daily budget allows of thirty signals decided at once, and skips the rest', async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'engine-budget-thirty');
    await longOn(authorization, 'ATOM', 'ATOM', 100);
    await budget(authorization, 500);
    const engine = t.api.rules.engine;
    await engine.reload();
    await Promise.all(
      Array.from({ length: 30 }, () =>
        engine.evaluate(completedSignal({ id: freshSignalId(), assets: ['ATOM'] })),
      ),
    );
    const rows = await ledger(t, authorization);
    // Each fill's notional is within a step of 100 USDT: four, or five when they round down.
    const fired = rows.filter((r) => r.outcome === 'fired');
    const spent = fired.reduce((sum, r) => sum + (r.notional ?? 0), 0);
    expect(fired.length).toBeGreaterThanOrEqual(4);
    expect(spent).toBeLessThanOrEqual(500);
    expect(spent + 100).toBeGreaterThan(500);
    expect(rows.filter((r) => r.outcome === 'skipped').map((r) => r.reason)).toEqual(
      Array.from({ length: 30 - fired.length }, () => 'budget'),
    );
  });

  it('counts an order whose outcome is unknown at its amount until it is settled', async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'engine-book-unknown');
    await longOn(authorization, 'NEAR', 'NEAR', 300);
    await budget(authorization, 500);
    const engine = t.api.rules.engine;
    await engine.reload();
    const send = vi
      .spyOn(t.api.trading, 'placeOrder')
      .mockRejectedValueOnce(appError('OUTCOME_UNKNOWN', 'The exchange did not answer.'));
    try {
      await engine.evaluate(completedSignal({ id: freshSignalId(), assets: ['NEAR'] }));
    } finally {
      send.mockRestore();
    }
    expect((await ledger(t, authorization)).map((r) => r.outcome)).toEqual(['pending']);
    // Still pending: 300 more would pass the budget of 500.
    await engine.evaluate(completedSignal({ id: freshSignalId(), assets: ['NEAR'] }));
    const [latest] = await ledger(t, authorization);
    expect([latest?.outcome, latest?.reason]).toEqual(['skipped', 'budget']);
    expect(latest?.detail).toContain('total 300.00 USDT');
  });

  it('counts in its totals a decision another process recorded, as the bus tells it', async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'engine-book-bus');
    await longOn(authorization, 'AVAX', 'AVAX', 300);
    await budget(authorization, 700);
    const engine = t.api.rules.engine;
    await engine.reload();
    await engine.evaluate(completedSignal({ id: freshSignalId(), assets: ['AVAX'] }));
    const [first] = await ledger(t, authorization);
    expect(first?.outcome).toBe('fired');
    // A proposal confirmed on another node fills 150 USDT: 300 more would pass the budget of 700.
    const [{ id: userId } = { id: '' }] = await t.app.database.db
      .select({ id: users.id })
      .from(users)
      .where(eq(users.username, 'engine-book-bus'));
    await t.app.bus.publish('rules.decided', {
      userId,
      origin: 'another-node',
      event: 'fired',
      decision: { ...first!, id: String(Number(first!.id) + 1_000_000), notional: 150, amount_usd: 150 },
    });
    await engine.evaluate(completedSignal({ id: freshSignalId(), assets: ['AVAX'] }));
    const rows = await ledger(t, authorization);
    expect(rows.map((r) => [r.outcome, r.reason]).sort()).toEqual([
      ['fired', null],
      ['skipped', 'budget'],
    ]);
    expect(rows.find((r) => r.outcome === 'skipped')?.detail).toMatch(/total 4\d\d\.\d\d USDT/);
  });

  it('never fires a rule twice for one signal, however often it is evaluated', async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'engine-once');
    await longOn(authorization, 'BNB');
    await t.api.rules.engine.reload();
    const signal = completedSignal({ id: freshSignalId(), assets: ['BNB'] });
    await Promise.all(Array.from({ length: 5 }, () => t.api.rules.engine.evaluate(signal)));
    const rows = await ledger(t, authorization);
    expect(
      rows.map((r) => r.outcome),
      JSON.stringify(rows),
    ).toEqual(['fired']);
    expect((await positions(authorization)).length).toBe(1);
  });

  it('decides a signal heard on the bus and read from the store at once, thirty times over, once per rule', async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'engine-heard');
    await longOn(authorization, 'LINK');
    await t.api.rules.engine.reload();
    const heard: Signal[] = [];
    const off = t.app.bus.subscribe('signal.published', ({ signal }) => {
      if (signal.analysis.status === 'completed') heard.push(signal);
    });
    try {
      expect(
        (await ingest('Chainlink (LINK) partners with Swift to settle tokenised funds')).statusCode,
      ).toBe(202);
      const signal = await until(async () => heard[0]);
      // The bus's copy and the cursor's read of the store, each thirty times, all at the same moment.
      await Promise.all([
        ...Array.from({ length: 30 }, () => t.api.rules.engine.hear(signal)),
        ...Array.from({ length: 30 }, () => t.api.rules.engine.pump()),
      ]);
    } finally {
      off();
    }
    const rows = await until(async () => {
      const all = await ledger(t, authorization);
      return all.length > 0 && all.every((r) => r.outcome !== 'pending') ? all : undefined;
    });
    expect(rows.map((r) => r.outcome)).toEqual(['fired']);
    expect((await positions(authorization)).map((p) => p.symbol)).toEqual(['LINK/USDT']);
  });

  it("claims a signal's decisions in one insert, and still fires once per (rule, signal) under 30 deliveries", async () => {
    const who = await Promise.all(['claims-a', 'claims-b', 'claims-c'].map((u) => signUpAndLogIn(t.app, u)));
    for (const { authorization } of who) {
      await longOn(authorization, 'ADA');
    }
    await t.api.rules.engine.reload();
    const claims = vi.spyOn(RulesRepo.prototype, 'claimDecisions');
    const single = vi.spyOn(RulesRepo.prototype, 'claimDecision');
    try {
      const signal = completedSignal({ id: freshSignalId(), assets: ['ADA'] });
      await Promise.all(Array.from({ length: 30 }, () => t.api.rules.engine.evaluate(signal)));
      // Every delivery claims the three decisions in one statement; only the first one records them.
      expect(claims.mock.calls.map(([rows]) => rows.length)).toEqual(Array.from({ length: 30 }, () => 3));
      expect(single).not.toHaveBeenCalled();
    } finally {
      claims.mockRestore();
      single.mockRestore();
    }
    for (const { authorization } of who) {
      expect((await ledger(t, authorization)).map((r) => r.outcome)).toEqual(['fired']);
      expect((await positions(authorization)).map((p) => p.symbol)).toEqual(['ADA/USDT']);
    }
  });

  it('closes the position a rule opened at its take profit or stop loss, on the marks', async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'engine-exits');
    await addRule(authorization, {
      ruleName: 'scalp DOGE',
      conditions: { asset: 'DOGE' },
      action: {
        type: 'trade',
        side: 'long',
        amount_usd: 200,
        exit: { take_profit_pct: 0.0001, stop_loss_pct: 0.0001 },
      },
      isActive: true,
    });
    await t.api.rules.engine.reload();
    await t.api.rules.engine.evaluate(completedSignal({ id: freshSignalId(), assets: ['DOGE'] }));
    await t.api.rules.exits.reload();
    // The exits may close it on the very next mark (the bounds are tiny), so the ledger says it opened.
    const [opened] = await ledger(t, authorization);
    expect(opened).toMatchObject({ outcome: 'fired', asset: 'DOGE' });
    const [closed] = await until(async () => {
      const rows = await ledger(t, authorization);
      // Taken (the exit note names the trigger), then closed (the note adds the closing fill).
      return rows[0]?.exit?.includes('closed') === true ? rows : undefined;
    });
    expect(closed?.exit).toMatch(
      /^(take profit|stop loss): -?\d+\.\d{2}% at [\d.]+; closed [\d.]+ at [\d.]+$/,
    );
    expect(await positions(authorization)).toEqual([]);
  });

  it('skips a rule beyond the free plan and an exchange refusal, with the exchange message', async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'engine-refusal');
    const tiny = await addRule(authorization, {
      ruleName: 'tiny BTC',
      conditions: { asset: 'BTC' },
      action: { type: 'trade', side: 'long', amount_usd: 150 },
      isActive: true,
    });
    // A rule below the minimum is refused at save; a venue that raises its minimum later still refuses
    // the order, which the ledger says in its words.
    const me = (await t.app.inject({ url: '/api/users/me', headers: { authorization } })).json() as {
      id: string;
    };
    await new RulesRepo(t.database.db).update(me.id, tiny.id, { amountUsd: '5' });
    await t.api.rules.engine.reload();
    await t.api.rules.engine.evaluate(completedSignal({ id: freshSignalId(), assets: ['BTC'] }));
    const [row] = await ledger(t, authorization);
    expect(row).toMatchObject({ outcome: 'skipped', reason: 'exchange' });
    expect(row?.detail).toContain('100');
  });
  it('a decision a crash left marked sent, whose order the venue does not know, is skipped as interrupted and never sent late', async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'engine-crash-sent');
    const rule = await longOn(authorization, 'ADA');
    const [{ id: userId } = { id: '' }] = await t.app.database.db
      .select({ id: users.id })
      .from(users)
      .where(eq(users.username, 'engine-crash-sent'));
    // The send time is written just before the order goes: a process killed right then leaves this row.
    const twoMinutesAgo = new Date(Date.now() - 120_000);
    const [row] = await t.app.database.db
      .insert(ruleDecisions)
      .values({
        userId,
        ruleId: rule.id,
        ruleName: rule.ruleName,
        ruleVersion: 1,
        signalId: Number(freshSignalId()),
        asset: 'ADA',
        symbol: 'ADAUSDT',
        side: 'long',
        amountUsd: '150',
        outcome: 'pending',
        decidedAt: twoMinutesAgo,
        sentAt: twoMinutesAgo,
      })
      .returning({ id: ruleDecisions.id });
    // The sweep settles interrupted decisions at most every 2 s: ask until its turn has come.
    const settled = await until(async () => {
      await t.api.rules.engine.pump({ sweep: true });
      const d = (await ledger(t, authorization)).find((x) => x.id === String(row?.id));
      return d?.outcome === 'pending' ? undefined : d;
    });
    expect(settled).toMatchObject({ outcome: 'skipped', reason: 'stale' });
    expect(settled?.detail).toContain('looked up by its client id, it was not');
    expect(await positions(authorization)).toEqual([]);
  });
});

// Two processes need a database server: this runs where TEST_DATABASE_URL names one (CI does).
const pg = dbTargets().includes('postgres') ? useDatabase('postgres') : undefined;
if (pg !== undefined)
  describe('two server processes on one Postgres', () => {
    let a: TestApp;
    let b: TestApp;
    beforeAll(async () => {
      a = await startTestApp(pg, ENV);
      b = await startTestApp(pg, ENV);
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
    });

    it('fire a rule once when both decide the same signal at the same time', async () => {
      const { authorization } = await signUpAndLogIn(a.app, 'engine-two-nodes');
      const res = await a.app.inject({
        method: 'POST',
        url: '/api/rules/',
        headers: { authorization },
        payload: {
          ruleName: 'any XRP',
          conditions: { asset: 'XRP' },
          action: { type: 'trade', side: 'long', amount_usd: 150 },
          isActive: true,
        },
      });
      expect(res.statusCode).toBe(201);
      await Promise.all([a.api.rules.engine.reload(), b.api.rules.engine.reload()]);
      const signal = completedSignal({ id: freshSignalId(), assets: ['XRP'] });
      await Promise.all([a.api.rules.engine.evaluate(signal), b.api.rules.engine.evaluate(signal)]);
      expect((await ledger(a, authorization)).map((r) => r.outcome)).toEqual(['fired']);
      expect(a.api.rules.engine.stats.fired + b.api.rules.engine.stats.fired).toBe(1);
    });
  });
