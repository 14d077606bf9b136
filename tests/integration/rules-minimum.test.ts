import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Rule } from '../../src/contracts/rules';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';

type Auth = { authorization: string };

describe.each(dbTargets())("a rule's amount against its venue's minimum on %s", (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let auth: Auth;
  beforeAll(async () => {
    t = await startTestApp(target);
    auth = await signUpAndLogIn(t.app, 'minimums');
  });
  afterAll(() => t.close());

  const send = (method: 'POST' | 'PATCH', url: string, payload: object) =>
    t.app.inject({ method, url, headers: auth, payload });
  const rule = (asset: string | undefined, amount: number) => ({
    ruleName: `${asset ?? 'any'} ${amount}`,
    conditions: asset === undefined ? {} : { asset },
    action: { type: 'trade', side: 'long', amount_usd: amount },
  });
  const refusal = (msg: string) => ({
    detail: [{ loc: ['body', 'action', 'amount_usd'], msg, type: 'value_error' }],
  });

  it('refuses at save a rule whose every order the paper exchange would refuse, naming its minimum', async () => {
    const low = await send('POST', '/api/rules/', rule('ETH', 2));
    expect(low.statusCode).toBe(422);
    expect(low.json()).toEqual(
      refusal("The paper exchange's minimum order for ETH is 20 USDT; this rule's 2 USDT would be refused."),
    );
    const btc = await send('POST', '/api/rules/', rule('BTC', 50));
    expect(btc.statusCode).toBe(422);
    expect((btc.json() as { detail: { msg: string }[] }).detail[0]?.msg).toMatch(
      /^The paper exchange's minimum order for BTC is 10\d(\.\d+)? USDT; this rule's 50 USDT would be refused\.$/,
    );
    // A rule on any asset has no one minimum: its orders' answers say it.
    expect((await send('POST', '/api/rules/', rule(undefined, 2))).statusCode).toBe(201);
    const list = await t.app.inject({ url: '/api/rules/', headers: auth });
    expect((list.json() as Rule[]).map((r) => r.ruleName)).toEqual(['any 2']);
  });

  it('refuses a change that takes the amount or the asset below the minimum, and takes one above it', async () => {
    const made = await send('POST', '/api/rules/', rule('ETH', 40));
    expect(made.statusCode, made.body).toBe(201);
    const { id } = made.json() as Rule;
    const lower = await send('PATCH', `/api/rules/${id}`, {
      action: { type: 'trade', side: 'long', amount_usd: 10 },
    });
    expect(lower.statusCode).toBe(422);
    expect(lower.json()).toEqual(
      refusal("The paper exchange's minimum order for ETH is 20 USDT; this rule's 10 USDT would be refused."),
    );
    const toBtc = await send('PATCH', `/api/rules/${id}`, { conditions: { asset: 'BTC' } });
    expect(toBtc.statusCode).toBe(422);
    const renamed = await send('PATCH', `/api/rules/${id}`, { ruleName: 'ETH forty' });
    expect(renamed.statusCode).toBe(200);
    const higher = await send('PATCH', `/api/rules/${id}`, {
      action: { type: 'trade', side: 'long', amount_usd: 25 },
    });
    expect(higher.statusCode, higher.body).toBe(200);
    expect((higher.json() as Rule).action.amount_usd).toBe(25);
  });
});
