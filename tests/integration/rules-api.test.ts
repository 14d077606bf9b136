import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STEP_UP_DETAILS } from '../../src/contracts/auth';
import { RiskState, type Rule } from '../../src/contracts/rules';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';
import { AuthClient, userIdOf } from './auth.support';

const RULE = {
  ruleName: 'SOL good news',
  conditions: { asset: 'sol', sentiment: 'positive', min_impact: 70, max_impact: 100 },
  action: { type: 'trade', side: 'long', amount_usd: 500 },
  isActive: true,
};

describe.each(dbTargets())('rules API on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    t = await startTestApp(target);
    alice = (await signUpAndLogIn(t.app, 'rule-alice')).authorization;
    bob = (await signUpAndLogIn(t.app, 'rule-bob')).authorization;
  });
  afterAll(() => t.close());

  const call = (
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT',
    url: string,
    who: string,
    payload?: object,
  ) => t.app.inject({ method, url, headers: { authorization: who }, ...(payload ? { payload } : {}) });

  it('creates a rule with the asset upper-cased and empty conditions left out', async () => {
    const res = await call('POST', '/api/rules/', alice, {
      ...RULE,
      ruleName: 'Any ETH news',
      conditions: { asset: 'eth', sentiment: '', min_impact: null, max_impact: 90 },
    });
    expect(res.statusCode).toBe(201);
    const rule = res.json() as Rule;
    expect(rule.conditions).toEqual({ asset: 'ETH', max_impact: 90 });
    expect(rule.action).toEqual({ type: 'trade', side: 'long', amount_usd: 500, account: 'paper' });
    expect(rule.isActive).toBe(true);
    const list = (await call('GET', '/api/rules/', alice)).json() as Rule[];
    expect(list.map((r) => r.ruleName)).toEqual(['Any ETH news']);
    expect((await call('GET', '/api/rules/', bob)).json()).toEqual([]);
  });

  it('refuses bad rules with a 422 detail naming each field', async () => {
    const res = await call('POST', '/api/rules/', alice, {
      ruleName: ' ',
      conditions: { asset: 'NOPE', sentiment: 'happy', min_impact: 80, max_impact: 20 },
      action: { type: 'trade', side: 'up' },
    });
    expect(res.statusCode).toBe(422);
    const msgs = (res.json() as { detail: { loc: string[]; msg: string }[] }).detail.map(
      (d) => `${d.loc.join('.')}: ${d.msg}`,
    );
    expect(msgs).toEqual(
      expect.arrayContaining([
        'body.ruleName: Rule name is required.',
        'body.conditions.asset: Asset must be a supported ticker such as BTC.',
        'body.conditions.sentiment: Sentiment must be positive, negative or neutral.',
        'body.action.side: Side must be long or short.',
        'body.action.amount_usd: Trade amount is required.',
      ]),
    );
    const low = await call('POST', '/api/rules/', alice, {
      ...RULE,
      action: { ...RULE.action, amount_usd: 0.5 },
    });
    expect(low.json()).toMatchObject({ detail: [{ msg: 'Trade amount must be at least 1.' }] });
    const range = await call('POST', '/api/rules/', alice, {
      ...RULE,
      conditions: { min_impact: 80, max_impact: 20 },
    });
    expect(range.json()).toMatchObject({
      detail: [{ msg: 'Minimum impact must not be above maximum impact.' }],
    });
  });

  it("edits, toggles and deletes only the owner's rules", async () => {
    const rule = (await call('POST', '/api/rules/', alice, RULE)).json() as Rule;
    const edited = await call('PATCH', `/api/rules/${rule.id}`, alice, {
      isActive: false,
      action: {
        type: 'trade',
        side: 'short',
        amount_usd: 250,
        exit: { take_profit_pct: 3, stop_loss_pct: '' },
      },
    });
    expect(edited.statusCode).toBe(200);
    expect(edited.json()).toMatchObject({
      isActive: false,
      version: 2,
      action: { side: 'short', amount_usd: 250, exit: { take_profit_pct: 3 } },
      conditions: { asset: 'SOL', sentiment: 'positive', min_impact: 70, max_impact: 100 },
    });
    expect((await call('PATCH', `/api/rules/${rule.id}`, bob, { isActive: true })).statusCode).toBe(404);
    expect((await call('DELETE', `/api/rules/${rule.id}`, bob)).statusCode).toBe(404);
    expect((await call('DELETE', `/api/rules/${rule.id}`, alice)).statusCode).toBe(204);
    expect((await call('DELETE', `/api/rules/${rule.id}`, alice)).json()).toEqual({
      detail: 'Rule not found.',
    });
    expect((await call('GET', '/api/rules/', alice)).statusCode).toBe(200);
    expect((await t.app.inject('/api/rules/')).statusCode).toBe(401);
  });

  it('lets a free account run 3 active rules and names Premium when a 4th is turned on', async () => {
    const carol = (await signUpAndLogIn(t.app, 'rule-carol')).authorization;
    for (let i = 0; i < 3; i++) {
      expect((await call('POST', '/api/rules/', carol, { ...RULE, ruleName: `r${i}` })).statusCode).toBe(201);
    }
    const fourth = await call('POST', '/api/rules/', carol, { ...RULE, ruleName: 'r3' });
    expect(fourth.statusCode).toBe(403);
    expect((fourth.json() as { detail: string }).detail).toContain('Premium');
    const off = (
      await call('POST', '/api/rules/', carol, { ...RULE, ruleName: 'off', isActive: false })
    ).json() as Rule;
    expect((await call('PATCH', `/api/rules/${off.id}`, carol, { isActive: true })).statusCode).toBe(403);
  });

  it('holds the maximum order size for every order, not only automated ones', async () => {
    const dave = (await signUpAndLogIn(t.app, 'rule-dave')).authorization;
    const risk = await call('PUT', '/api/rules/risk', dave, { max_order_usd: 300 });
    expect(risk.json()).toMatchObject({ max_order_usd: 300, kill_switch: false, spent_today_usd: 0 });
    const order = await call('POST', '/api/orders', dave, {
      symbol: 'ETH/USDT',
      side: 'long',
      type: 'market',
      amount: 301,
    });
    expect(order.statusCode).toBe(400);
    expect(order.json()).toEqual({
      detail: 'The order of 301 USDT is above your maximum order size of 300 USDT (risk settings).',
    });
    const ok = await call('POST', '/api/orders', dave, {
      symbol: 'ETH/USDT',
      side: 'long',
      type: 'market',
      amount: 300,
    });
    expect(ok.statusCode).toBe(200);
    const bad = await call('PUT', '/api/rules/risk', dave, { max_positions: 0 });
    expect(bad.statusCode).toBe(422);
  });

  it('turns the kill switch on with a resume time and off again', async () => {
    const on = await call('POST', '/api/rules/kill-switch', alice, { on: true, resume_in_minutes: 30 });
    const state = on.json() as { kill_switch: boolean; resume_at: string };
    expect(state.kill_switch).toBe(true);
    expect(Date.parse(state.resume_at) - Date.now()).toBeGreaterThan(29 * 60_000);
    const off = await call('POST', '/api/rules/kill-switch', alice, { on: false });
    expect(off.json()).toMatchObject({ kill_switch: false, resume_at: null });
  });

  it('asks for step-up before a timed kill switch lifts a stop sooner; stopping longer never asks', async () => {
    const password = 'correct horse battery';
    const erin = new AuthClient(t.app);
    expect((await erin.signup('rule-erin', password)).statusCode).toBe(201);
    expect((await erin.login('rule-erin', password)).statusCode).toBe(200);
    const erinId = await userIdOf(erin);
    /** Moves the sign-in's confirmation into the past, as five minutes going by would. */
    const expire = () =>
      t.database.db.execute(
        sql`update step_ups set confirmed_until = now() - interval '1 second' where user_id = ${erinId}`,
      );
    const kill = (body: Record<string, unknown>) => erin.send('POST', '/rules/kill-switch', body);
    const state = async () => RiskState.parse((await erin.send('GET', '/rules/risk')).json());
    const refused = { detail: STEP_UP_DETAILS.required, code: 'step_up_required' };
    const minutesLeft = (s: RiskState) => Math.round((Date.parse(s.resume_at ?? '') - Date.now()) / 60_000);

    await expire();
    // From running, a stop of any length is welcome.
    expect((await kill({ on: true, resume_in_minutes: 60 })).statusCode).toBe(200);
    expect((await kill({ on: true, resume_in_minutes: 120 })).statusCode).toBe(200);
    expect(minutesLeft(await state())).toBe(120);
    // Sooner than the stop in place: asked, and the stop stays as it was.
    const sooner = await kill({ on: true, resume_in_minutes: 30 });
    expect(sooner.statusCode).toBe(403);
    expect(sooner.json()).toEqual(refused);
    expect(minutesLeft(await state())).toBe(120);
    // An indefinite stop is the latest of all: turning it into one that lifts itself in a minute asks too.
    expect((await kill({ on: true })).statusCode).toBe(200);
    const timed = await kill({ on: true, resume_in_minutes: 1 });
    expect(timed.statusCode).toBe(403);
    expect(timed.json()).toEqual(refused);
    expect(await state()).toMatchObject({ kill_switch: true, resume_at: null });
    // Thirty at once, beside stops without end: none of them shortens the stop without step-up.
    const many = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        kill(i % 2 === 0 ? { on: true } : { on: true, resume_in_minutes: 1 }),
      ),
    );
    expect(many.map((r) => r.statusCode).sort()).toEqual([
      ...Array.from({ length: 15 }, () => 200),
      ...Array.from({ length: 15 }, () => 403),
    ]);
    expect(await state()).toMatchObject({ kill_switch: true, resume_at: null });
    // Confirmed, the stop lifts itself a minute from now.
    expect((await erin.send('POST', '/auth/step-up', { password })).statusCode).toBe(200);
    const confirmed = await kill({ on: true, resume_in_minutes: 1 });
    expect(confirmed.statusCode).toBe(200);
    expect(minutesLeft(RiskState.parse(confirmed.json()))).toBe(1);
    await expire();
    // Longer again, or without end, never asks; resuming now still does.
    expect((await kill({ on: true, resume_in_minutes: 45 })).statusCode).toBe(200);
    expect((await kill({ on: true })).statusCode).toBe(200);
    expect((await kill({ on: false })).statusCode).toBe(403);
    expect(await state()).toMatchObject({ kill_switch: true, resume_at: null });
  });
});
