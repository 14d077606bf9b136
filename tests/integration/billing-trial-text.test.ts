import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';

describe.each(dbTargets())('the checkout page says what the trial costs today on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(target);
  });
  afterAll(() => t.close());

  const checkoutPage = async (auth: { authorization: string }, provider: string, planType: string) => {
    const made = await t.app.inject({
      method: 'POST',
      url: '/api/subscriptions/create-payment-session',
      headers: auth,
      payload: { planType, provider },
    });
    expect(made.statusCode, made.body).toBe(200);
    return (await t.app.inject({ url: made.json<{ checkout_url: string }>().checkout_url })).body;
  };

  it('a card checkout that starts the trial: "7-day trial, $0 today", then the plan price', async () => {
    const auth = await signUpAndLogIn(t.app, 'trina');
    const monthly = await checkoutPage(auth, 'card', 'monthly');
    expect(monthly).toContain(
      '<p style="font-size: 1.2rem; color: #2ea043" data-testid="trial-today">7-day trial, $0 today, then $179 per month (this sandbox never charges).</p>',
    );
    expect(await checkoutPage(auth, 'card', 'yearly')).toContain(
      '7-day trial, $0 today, then $1790 per year',
    );
  });

  it('a crypto checkout has no trial, and says none', async () => {
    const auth = await signUpAndLogIn(t.app, 'cyra');
    const page = await checkoutPage(auth, 'crypto', 'monthly');
    expect(page).toContain('Premium monthly: $179 per month (crypto)');
    expect(page).not.toContain('$0 today');
  });

  it('an account that had its trial is offered none: no "$0 today"', async () => {
    const auth = await signUpAndLogIn(t.app, 'tilda');
    const me = await t.app.inject({ url: '/api/users/me', headers: auth });
    const userId = me.json<{ id: string }>().id;
    await t.database.db.execute(
      sql`insert into billing_accounts (user_id, trial_used_at) values (${userId}, now())`,
    );
    const page = await checkoutPage(auth, 'card', 'monthly');
    expect(page).toContain('Premium monthly: $179 per month (card)');
    expect(page).not.toContain('$0 today');
  });
});
