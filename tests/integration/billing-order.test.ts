import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityList } from '../../src/contracts/activity';
import { SubscriptionView } from '../../src/contracts/billing';
import { stripeDouble, type StripeDouble } from '../fixtures/payment-doubles';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';

const WHSEC = 'whsec_order_secret';
const stripe = new Stripe('sk_test_double');
type Auth = { authorization: string };

/**
 * Stripe delivers events late, twice and out of order: an event older than the state already applied
 * must not undo it, and one checkout pays once whatever the event id.
 */
describe.each(dbTargets())('Stripe events out of order on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let stripeApi: StripeDouble;
  beforeAll(async () => {
    stripeApi = await stripeDouble();
    t = await startTestApp(target, {
      STRIPE_SECRET_KEY: 'sk_test_double',
      STRIPE_WEBHOOK_SECRET: WHSEC,
      STRIPE_API_URL: stripeApi.url,
    });
  });
  afterAll(async () => {
    await t.close();
    await stripeApi.close();
  });

  /** Signed as Stripe signs (`t=…,v1=` HMAC-SHA256 of `t.payload`), with the event's own `created`. */
  const hook = (event: object) => {
    const payload = JSON.stringify(event);
    return t.app.inject({
      method: 'POST',
      url: '/api/subscriptions/webhooks/stripe',
      headers: {
        'content-type': 'application/json',
        'stripe-signature': stripe.webhooks.generateTestHeaderString({ payload, secret: WHSEC }),
      },
      payload,
    });
  };
  const me = async (auth: Auth) =>
    SubscriptionView.parse((await t.app.inject({ url: '/api/subscriptions/me', headers: auth })).json());
  const planLines = async (auth: Auth) => {
    const res = await t.app.inject({ url: '/api/account/activity?limit=100', headers: auth });
    return ActivityList.parse(res.json())
      .filter((e) => e.kind === 'plan_changed')
      .map((e) => e.text)
      .reverse();
  };
  const checkout = async (auth: Auth) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/subscriptions/create-payment-session',
      headers: auth,
      payload: { planType: 'monthly', provider: 'card' },
    });
    return res.json<{ checkout_url: string }>().checkout_url.split('/').pop() ?? '';
  };
  const now = () => Math.floor(Date.now() / 1000);
  const completed = (id: string, sessionId: string, subId: string) => ({
    id,
    object: 'event',
    type: 'checkout.session.completed',
    created: now(),
    data: { object: { id: sessionId, object: 'checkout.session', subscription: subId } },
  });
  const subEvent = (id: string, type: string, object: Record<string, unknown>, created: number) => ({
    id,
    object: 'event',
    type,
    created,
    data: { object: { object: 'subscription', ...object } },
  });

  it('a delayed, older "updated {active}" after "deleted" leaves the plan canceled', async () => {
    const auth = await signUpAndLogIn(t.app, 'olga');
    const sessionId = await checkout(auth);
    expect((await hook(completed('evt_o1', sessionId, 'sub_olga'))).statusCode).toBe(200);
    expect((await me(auth)).status).toBe('active');
    const end = now() + 30 * 86_400;
    const older = subEvent(
      'evt_o2',
      'customer.subscription.updated',
      { id: 'sub_olga', status: 'active', current_period_end: end },
      now() - 60,
    );
    // Stripe deletes the subscription; its "deleted" event arrives first, the older update after it.
    stripeApi.subscriptions.set('sub_olga', { status: 'canceled', current_period_end: end });
    const deleted = subEvent(
      'evt_o3',
      'customer.subscription.deleted',
      { id: 'sub_olga', status: 'canceled' },
      now(),
    );
    expect((await hook(deleted)).json()).toEqual({ received: true, applied: true });
    expect((await me(auth)).status).toBe('canceled');
    expect((await hook(older)).statusCode).toBe(200);
    expect((await me(auth)).status).toBe('canceled');
    expect((await me(auth)).current_period_end).toBe(new Date(end * 1000).toISOString());
    // A delayed "payment failed" does not put a canceled plan on hold either.
    const failed = {
      id: 'evt_o4',
      object: 'event',
      type: 'invoice.payment_failed',
      created: now() - 30,
      data: { object: { object: 'invoice', subscription: 'sub_olga' } },
    };
    expect((await hook(failed)).statusCode).toBe(200);
    expect((await me(auth)).status).toBe('canceled');
    expect(await planLines(auth)).toEqual([
      'Plan: Premium monthly, paid by card',
      'Plan: Free (Premium monthly canceled)',
    ]);
  });

  it('a second checkout.session.completed for one session, under a new event id, is no fresh trial', async () => {
    const auth = await signUpAndLogIn(t.app, 'pete');
    const sessionId = await checkout(auth);
    expect((await hook(completed('evt_p1', sessionId, 'sub_pete'))).statusCode).toBe(200);
    const trialEnd = (await me(auth)).trial_end;
    stripeApi.subscriptions.set('sub_pete', { status: 'canceled' });
    await hook(
      subEvent('evt_p2', 'customer.subscription.deleted', { id: 'sub_pete', status: 'canceled' }, now()),
    );
    expect((await me(auth)).status).toBe('canceled');
    expect((await hook(completed('evt_p3', sessionId, 'sub_pete'))).statusCode).toBe(200);
    expect(await me(auth)).toMatchObject({ status: 'canceled', trial_end: trialEnd });
  });

  it('30 deliveries of one checkout at once, each under its own event id, apply it once', async () => {
    const auth = await signUpAndLogIn(t.app, 'quin');
    const sessionId = await checkout(auth);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => hook(completed(`evt_q${i}`, sessionId, 'sub_quin'))),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array.from({ length: 30 }, () => 200));
    expect((await me(auth)).status).toBe('active');
    expect(await planLines(auth)).toEqual(['Plan: Premium monthly, paid by card']);
  });

  it('answers 503 when Stripe cannot say what the subscription is now, so that Stripe delivers again', async () => {
    const broken = await startTestApp(target, {
      STRIPE_SECRET_KEY: 'sk_test_double',
      STRIPE_WEBHOOK_SECRET: WHSEC,
      STRIPE_API_URL: 'http://127.0.0.1:9',
    });
    try {
      const event = subEvent(
        'evt_r2',
        'customer.subscription.deleted',
        { id: 'sub_rose', status: 'canceled' },
        now(),
      );
      const payload = JSON.stringify(event);
      const down = await broken.app.inject({
        method: 'POST',
        url: '/api/subscriptions/webhooks/stripe',
        headers: {
          'content-type': 'application/json',
          'stripe-signature': stripe.webhooks.generateTestHeaderString({ payload, secret: WHSEC }),
        },
        payload,
      });
      expect(down.statusCode).toBe(503);
      expect(down.json()).toEqual({ detail: 'The payment provider is unavailable. Please try again later.' });
    } finally {
      await broken.close();
    }
  });
});
