import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RULE_DETAILS, type RiskState } from '../../src/contracts/rules';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';

type Auth = { authorization: string };

describe.each(dbTargets())('the default max order fits the account on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(target);
  });
  afterAll(() => t.close());

  const risk = async (auth: Auth) =>
    (await t.app.inject({ url: '/api/rules/risk', headers: auth })).json() as RiskState;
  const put = (auth: Auth, payload: object) =>
    t.app.inject({ method: 'PUT', url: '/api/rules/risk', headers: auth, payload });
  const order = (auth: Auth, amount: number) =>
    t.app.inject({
      method: 'POST',
      url: '/api/orders',
      headers: auth,
      payload: { symbol: 'ETH/USDT', side: 'long', type: 'market', amount },
    });

  it('is five times the paper balance, says so, and the manual order guard holds it', async () => {
    const auth = await signUpAndLogIn(t.app, 'fits-paper');
    const state = await risk(auth);
    expect(state).toMatchObject({
      max_order_usd: 50_000,
      max_order_basis: '5 × your 10,000 paper balance',
      max_order_saved: false,
    });
    // Thirty at once above it: every one refused, each with the same words, nothing placed.
    const over = await Promise.all(Array.from({ length: 30 }, () => order(auth, 60_000)));
    expect(over.map((r) => r.statusCode)).toEqual(Array.from({ length: 30 }, () => 400));
    for (const r of over) expect(r.json()).toEqual({ detail: RULE_DETAILS.maxOrder(60_000, 50_000) });
    const positions = await t.app.inject({ url: '/api/positions', headers: auth });
    expect(positions.json()).toEqual([]);
    expect((await order(auth, 5000)).statusCode).toBe(200);
  });

  it('stays the default when another setting is saved, and keeps a value the trader set as they set it', async () => {
    const auth = await signUpAndLogIn(t.app, 'fits-own');
    expect((await put(auth, { daily_budget_usd: 800 })).statusCode).toBe(200);
    await t.app.inject({
      method: 'POST',
      url: '/api/rules/kill-switch',
      headers: auth,
      payload: { on: true },
    });
    expect(await risk(auth)).toMatchObject({ max_order_usd: 50_000, max_order_saved: false });
    const saved = await put(auth, { max_order_usd: 6000 });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toMatchObject({
      max_order_usd: 6000,
      max_order_basis: 'your own setting',
      max_order_saved: true,
    });
    expect((await order(auth, 5000)).statusCode).toBe(200);
  });
});
