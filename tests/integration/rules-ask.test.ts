import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BusEventMap } from '../../src/contracts/events';
import type { Rule, RuleAnswerResult } from '../../src/contracts/rules';
import type { Position } from '../../src/contracts/trading';
import type { Clock } from '../../src/contracts/clock';
import { eq } from 'drizzle-orm';
import { ruleDecisions } from '../../server/db/schema/rules';
import { RulesRepo } from '../../server/modules/rules/rules.repo';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';
import { completedSignal, freshSignalId, ledger } from './rules.support';

/** The real time moved on by `skip`: the rules module's clock, driven past an ask's window. */
function skippingClock(): Clock & { skip(ms: number): void } {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    setTimer(fn, ms) {
      const handle = setTimeout(fn, ms);
      return () => clearTimeout(handle);
    },
    skip(ms) {
      offset += ms;
    },
  };
}

describe.each(dbTargets())('rules that ask first on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  const clock = skippingClock();
  const told: BusEventMap['rules.decided'][] = [];

  beforeAll(async () => {
    t = await startTestApp(
      target,
      // The tests decide their own signals: a replayed headline would add decisions of its own.
      { MARKET_SIM_TICK_MS: '60000', NEWS_SOURCES: 'webhook' },
      { rulesClock: clock },
    );
    t.app.bus.subscribe('rules.decided', (event) => void told.push(event));
  });
  afterAll(() => t.close());

  const addRule = async (who: string, asset: string, over: object = {}): Promise<Rule> => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/rules/',
      headers: { authorization: who },
      payload: {
        ruleName: `ask ${asset}`,
        conditions: { asset },
        action: { type: 'trade', side: 'long', amount_usd: 200 },
        mode: 'ask',
        ...over,
      },
    });
    if (res.statusCode !== 201) throw new Error(res.body);
    await t.api.rules.engine.reload();
    return res.json() as Rule;
  };
  const positions = async (who: string) =>
    (await t.app.inject({ url: '/api/positions', headers: { authorization: who } })).json() as Position[];
  const answer = (who: string, id: string, body: object) =>
    t.app.inject({
      method: 'POST',
      url: `/api/rules/decisions/${id}/answer`,
      headers: { authorization: who },
      payload: body,
    });
  /** The user id behind a decision (the ledger shows none). */
  const ownerOf = async (decisionId: string): Promise<string> => {
    const row = await t.database.db
      .select({ userId: ruleDecisions.userId })
      .from(ruleDecisions)
      .where(eq(ruleDecisions.id, Number(decisionId)));
    return row[0]!.userId;
  };
  /** A matching signal decided now: the proposal it opened. */
  const propose = async (who: string, asset: string) => {
    const id = freshSignalId();
    await t.api.rules.engine.evaluate(completedSignal({ id, assets: [asset], receivedAt: clock.now() }));
    const row = (await ledger(t, who)).find((d) => d.signal_id === id);
    if (row === undefined) throw new Error('no decision');
    return row;
  };

  it('proposes the order with its news and places nothing', async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'ask-proposes');
    const rule = await addRule(authorization, 'BTC', { ask_window_sec: 90 });
    expect(rule).toMatchObject({ mode: 'ask', ask_window_sec: 90 });
    const asked = await propose(authorization, 'BTC');
    expect(asked).toMatchObject({ outcome: 'asking', answered_via: null, order_id: null, side: 'long' });
    const window = Date.parse(asked.ask_expires_at ?? '') - Date.parse(asked.decided_at);
    expect(window).toBe(90_000);
    expect(await positions(authorization)).toEqual([]);
    await expect
      .poll(() => told.find((e) => e.decision.id === asked.id))
      .toMatchObject({
        event: 'asking',
        headline: `test signal ${asked.signal_id}`,
        reasoning: 'test',
      });
  });

  it('places exactly one order for 30 confirmations at once; the others hear where it was answered', async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'ask-race');
    await addRule(authorization, 'ETH');
    const asked = await propose(authorization, 'ETH');
    const vias = ['browser', 'terminal', 'api'] as const;
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        answer(authorization, asked.id, { answer: 'confirm', via: vias[i % 3] }),
      ),
    );
    const won = answers.filter((a) => a.statusCode === 200);
    expect(won).toHaveLength(1);
    const result = won[0]!.json() as RuleAnswerResult;
    expect(result.decision).toMatchObject({ outcome: 'fired', answered_via: expect.any(String) });
    expect(result.message).toMatch(/^Placed LONG [\d.]+ ETH at [\d.]+ on paper\.$/);
    const lost = answers.filter((a) => a.statusCode !== 200);
    expect(new Set(lost.map((a) => a.statusCode))).toEqual(new Set([409]));
    const via = { browser: 'the browser', terminal: 'the terminal', api: 'the API' }[
      result.decision.answered_via as 'browser'
    ];
    for (const a of lost) expect(a.json()).toEqual({ detail: `Already answered in ${via}.` });
    expect((await positions(authorization)).map((p) => [p.symbol, p.side])).toEqual([['ETH/USDT', 'long']]);
    const events = told.filter((e) => e.decision.id === asked.id).map((e) => e.event);
    await expect.poll(() => told.filter((e) => e.decision.id === asked.id).length).toBe(3);
    expect(events.slice(0, 1)).toEqual(['asking']);
  });

  it('records a rejection and an unanswered proposal as skipped, with their reasons', async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'ask-reject');
    await addRule(authorization, 'SOL');
    const rejected = await propose(authorization, 'SOL');
    const res = await answer(authorization, rejected.id, { answer: 'reject', via: 'browser' });
    expect(res.statusCode).toBe(200);
    expect((res.json() as RuleAnswerResult).decision).toMatchObject({
      outcome: 'skipped',
      reason: 'rejected',
      detail: 'Rejected in the browser.',
      answered_via: 'browser',
    });
    expect((await answer(authorization, rejected.id, { answer: 'confirm' })).json()).toEqual({
      detail: 'Already answered in the browser.',
    });

    const unanswered = await propose(authorization, 'SOL');
    clock.skip(59_000);
    expect(await t.api.rules.engine.expireAsks()).toBe(0);
    clock.skip(2_000);
    await t.api.rules.engine.expireAsks();
    const row = (await ledger(t, authorization)).find((d) => d.id === unanswered.id);
    expect(row).toMatchObject({ outcome: 'skipped', reason: 'no_answer', detail: 'No answer within 60 s.' });
    const late = await answer(authorization, unanswered.id, { answer: 'confirm' });
    expect(late.statusCode).toBe(409);
    expect(late.json()).toEqual({ detail: 'The proposal expired: no answer came in time.' });
    await expect
      .poll(() => told.some((e) => e.decision.id === unanswered.id && e.event === 'skipped'))
      .toBe(true);
    expect(await positions(authorization)).toEqual([]);
  });

  it('checks the risk envelope again at confirmation: the kill switch turned on meanwhile skips it', async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'ask-kill');
    await addRule(authorization, 'BNB');
    const asked = await propose(authorization, 'BNB');
    await t.app.inject({
      method: 'POST',
      url: '/api/rules/kill-switch',
      headers: { authorization },
      payload: { on: true },
    });
    const res = await answer(authorization, asked.id, { answer: 'confirm', via: 'terminal' });
    expect(res.statusCode).toBe(200);
    const result = res.json() as RuleAnswerResult;
    expect(result.decision).toMatchObject({
      outcome: 'skipped',
      reason: 'kill_switch',
      answered_via: 'terminal',
    });
    expect(result.message).toBe('Not placed: Automated trading is off.');
    expect(await positions(authorization)).toEqual([]);
  });

  it("checks the headline's age again at confirmation, held to the proposal's window", async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'ask-stale');
    await addRule(authorization, 'XRP', { ask_window_sec: 30 });
    // Received 10 s before the rule saw it: fresh then (max 15 s), 35 s old when the answer comes 25 s
    // later, inside the 30 s window but older than the window allows.
    const id = freshSignalId();
    await t.api.rules.engine.evaluate(
      completedSignal({ id, assets: ['XRP'], receivedAt: clock.now() - 10_000 }),
    );
    const asked = (await ledger(t, authorization)).find((d) => d.signal_id === id);
    expect(asked?.outcome).toBe('asking');
    clock.skip(25_000);
    const result = (await answer(authorization, asked!.id, { answer: 'confirm' })).json() as RuleAnswerResult;
    expect(result.decision).toMatchObject({ outcome: 'skipped', reason: 'stale' });
    expect(result.message).toMatch(/^Not placed: received 3\d s ago \(max 30 s\)$/);
    expect(await positions(authorization)).toEqual([]);
  });

  it('trades a proposal confirmed 20 s later: the person had the 60 s window, not the 15 s of an automated order', async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'ask-human-pace');
    await addRule(authorization, 'AVAX');
    const asked = await propose(authorization, 'AVAX');
    clock.skip(20_000);
    const result = (await answer(authorization, asked.id, { answer: 'confirm' })).json() as RuleAnswerResult;
    expect(result.decision).toMatchObject({ outcome: 'fired' });
    expect((await positions(authorization)).map((p) => p.symbol)).toEqual(['AVAX/USDT']);
  });

  it('trades a proposal confirmed minutes later when the maximum age allows it, never taken as interrupted', async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'ask-late');
    await addRule(authorization, 'LINK', { ask_window_sec: 600 });
    const asked = await propose(authorization, 'LINK');
    const userId = await ownerOf(asked.id);
    await t.api.rules.risk.update(userId, { max_age_seconds: 3600 });
    clock.skip(120_000);
    // Confirmed two minutes after the claim: the sweep for interrupted decisions counts from the answer.
    const repo = new RulesRepo(t.database.db);
    const at = new Date(clock.now());
    const pending = await repo.answerDecision(userId, Number(asked.id), at, {
      outcome: 'pending',
      answeredVia: 'api',
      answeredAt: at,
    });
    expect(pending?.outcome).toBe('pending');
    const interrupted = await repo.pendingDecisions(new Date(clock.now() - 60_000));
    expect(interrupted.map((d) => String(d.id))).not.toContain(asked.id);
    await repo.updateDecision(Number(asked.id), { outcome: 'asking', answeredVia: null, answeredAt: null });

    const result = (await answer(authorization, asked.id, { answer: 'confirm' })).json() as RuleAnswerResult;
    expect(result.decision).toMatchObject({ outcome: 'fired', answered_via: 'api' });
    expect((await positions(authorization)).map((p) => p.symbol)).toEqual(['LINK/USDT']);
  });

  it("publishes an auto rule's fire on the bus too, with its headline", async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'auto-told');
    await addRule(authorization, 'ADA', { mode: 'auto' });
    const id = freshSignalId();
    await t.api.rules.engine.evaluate(completedSignal({ id, assets: ['ADA'], receivedAt: clock.now() }));
    await expect
      .poll(() => told.find((e) => e.decision.signal_id === id))
      .toMatchObject({ event: 'fired', headline: `test signal ${id}`, decision: { outcome: 'fired' } });
    expect(told.filter((e) => e.decision.signal_id === id).map((e) => e.event)).toEqual(['fired']);
  });

  it("answers 404 on another user's decision, and 422 on a bad answer", async () => {
    const owner = await signUpAndLogIn(t.app, 'ask-owner');
    const other = await signUpAndLogIn(t.app, 'ask-other');
    await addRule(owner.authorization, 'DOGE');
    const asked = await propose(owner.authorization, 'DOGE');
    const res = await answer(other.authorization, asked.id, { answer: 'confirm' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: 'Decision not found.' });
    const bad = await answer(owner.authorization, asked.id, { answer: 'maybe' });
    expect(bad.statusCode).toBe(422);
    expect(JSON.stringify(bad.json())).toContain('Answer must be confirm or reject.');
    expect((await ledger(t, owner.authorization))[0]).toMatchObject({ outcome: 'asking' });
    const window = await t.app.inject({
      method: 'POST',
      url: '/api/rules/',
      headers: { authorization: owner.authorization },
      payload: {
        ruleName: 'too quick',
        action: { side: 'long', amount_usd: 10 },
        mode: 'ask',
        ask_window_sec: 5,
      },
    });
    expect(window.statusCode).toBe(422);
    expect(JSON.stringify(window.json())).toContain('Ask window must be at least 10 seconds.');
  });
});
