import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RULE_DETAILS, type Rule } from '../../src/contracts/rules';
import type { Signal } from '../../src/contracts/signals';
import type { Position } from '../../src/contracts/trading';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';
import { completedSignal, freshSignalId, ledger, skippingClock } from './rules.support';

/** Longer than the rules keep an account's plan in memory. */
const PLAN_KEPT_MS = 31_000;

/** `PREMIUM_NEWS_SOURCES`: a rule sees what its owner's plan sees, no more. */
describe.each(dbTargets())('rules and premium news sources on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let admin: string;
  const clock = skippingClock();

  beforeAll(async () => {
    t = await startTestApp(
      target,
      // The tests decide their own signals; the webhook's items reach Premium accounts only.
      { MARKET_SIM_TICK_MS: '60000', NEWS_SOURCES: 'webhook,rss', PREMIUM_NEWS_SOURCES: 'webhook' },
      { rulesClock: clock },
    );
    // The first account on a loopback server is the administrator, who grants Premium here.
    admin = (await signUpAndLogIn(t.app, 'premium-root')).authorization;
  });
  afterAll(() => t.close());

  const call = (method: 'GET' | 'POST' | 'PUT', url: string, who: string, payload?: object) =>
    t.app.inject({ method, url, headers: { authorization: who }, ...(payload ? { payload } : {}) });
  const trader = async (name: string) => {
    const { authorization } = await signUpAndLogIn(t.app, name);
    const id = ((await call('GET', '/api/users/me', authorization)).json() as { id: string }).id;
    // Several signals about one coin in a row: no cooldown between them.
    expect((await call('PUT', '/api/rules/risk', authorization, { cooldown_minutes: 0 })).statusCode).toBe(
      200,
    );
    const rule = await call('POST', '/api/rules/', authorization, {
      ruleName: `${name} ETH`,
      conditions: { asset: 'ETH' },
      action: { type: 'trade', side: 'long', amount_usd: 200 },
    });
    expect(rule.statusCode, rule.body).toBe(201);
    return { authorization, id, rule: rule.json() as Rule };
  };
  const premium = async (userId: string, on: boolean) => {
    const res = await call('POST', `/api/admin/users/${userId}/premium`, admin, { premium: on, days: 30 });
    expect(res.statusCode, res.body).toBe(200);
  };
  /** A completed ETH signal from `source`, decided now: its id. */
  const decide = async (source: 'webhook' | 'rss'): Promise<string> => {
    const id = freshSignalId();
    const signal: Signal = { ...completedSignal({ id, assets: ['ETH'], receivedAt: clock.now() }), source };
    await t.api.rules.engine.reload();
    await t.api.rules.engine.evaluate(signal);
    return id;
  };
  const onSignal = async (who: string, signalId: string) =>
    (await ledger(t, who)).filter((d) => d.signal_id === signalId).map((d) => d.outcome);
  const positions = async (who: string) =>
    ((await call('GET', '/api/positions', who)).json() as Position[]).filter((p) => p.symbol === 'ETH/USDT');

  it("trades a premium source's item for Premium accounts only, and once upgraded for the free one too", async () => {
    const fay = await trader('premium-fay');
    const pat = await trader('premium-pat');
    await premium(pat.id, true);
    clock.skip(PLAN_KEPT_MS);

    const first = await decide('webhook');
    // Not traded, not even skipped where Fay could read it: the item never reached her rule.
    expect(await onSignal(fay.authorization, first)).toEqual([]);
    expect(await positions(fay.authorization)).toEqual([]);
    expect(await onSignal(pat.authorization, first)).toEqual(['fired']);
    // Her rule trades what her plan receives.
    const open = await decide('rss');
    expect(await onSignal(fay.authorization, open)).toEqual(['fired']);

    await premium(fay.id, true);
    clock.skip(PLAN_KEPT_MS);
    const second = await decide('webhook');
    expect(await onSignal(fay.authorization, second)).toEqual(['fired']);
    expect(await onSignal(pat.authorization, second)).toEqual(['fired']);
  });

  it("leaves a premium source's decisions out of a free account's ledger, and its rules stop trading them", async () => {
    const gus = await trader('premium-gus');
    await premium(gus.id, true);
    clock.skip(PLAN_KEPT_MS);
    const paid = await decide('webhook');
    const open = await decide('rss');
    expect(await onSignal(gus.authorization, paid)).toEqual(['fired']);

    await premium(gus.id, false);
    // The ledger answers from the plan as it is now; the rules within the time they keep it.
    const shown = (await ledger(t, gus.authorization)).map((d) => d.signal_id);
    expect(shown).toContain(open);
    expect(shown).not.toContain(paid);
    expect(await ledger(t, gus.authorization, `?signal_id=${paid}`)).toEqual([]);
    const csv = (await call('GET', '/api/rules/ledger.csv', gus.authorization)).body;
    expect(csv).toContain(`,${open},`);
    expect(csv).not.toContain(`,${paid},`);

    clock.skip(PLAN_KEPT_MS);
    const later = await decide('webhook');
    expect(await onSignal(gus.authorization, later)).toEqual([]);
    // Premium again: what his rules traded then is his to see again.
    await premium(gus.id, true);
    expect(await onSignal(gus.authorization, paid)).toEqual(['fired']);
  });

  it("places nothing for a premium source's proposal confirmed once Premium has ended", async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'premium-ida');
    const id = ((await call('GET', '/api/users/me', authorization)).json() as { id: string }).id;
    await premium(id, true);
    clock.skip(PLAN_KEPT_MS);
    const rule = await call('POST', '/api/rules/', authorization, {
      ruleName: 'ask SOL',
      conditions: { asset: 'SOL' },
      action: { type: 'trade', side: 'long', amount_usd: 200 },
      mode: 'ask',
      ask_window_sec: 600,
    });
    expect(rule.statusCode, rule.body).toBe(201);
    const signalId = freshSignalId();
    await t.api.rules.engine.reload();
    await t.api.rules.engine.evaluate({
      ...completedSignal({ id: signalId, assets: ['SOL'], receivedAt: clock.now() }),
      source: 'webhook',
    });
    const [asked] = await ledger(t, authorization, `?signal_id=${signalId}`);
    expect(asked?.outcome).toBe('asking');

    await premium(id, false);
    clock.skip(PLAN_KEPT_MS);
    const res = await call('POST', `/api/rules/decisions/${asked?.id}/answer`, authorization, {
      answer: 'confirm',
      via: 'browser',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      decision: { outcome: 'skipped', reason: 'plan_limit', detail: RULE_DETAILS.premiumSource },
    });
    expect(
      ((await call('GET', '/api/positions', authorization)).json() as Position[]).filter(
        (p) => p.symbol === 'SOL/USDT',
      ),
    ).toEqual([]);
  });
});
