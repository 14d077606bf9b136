import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityList } from '../../src/contracts/activity';
import { CancelAnswer, SubscriptionView } from '../../src/contracts/billing';
import { BillingRepo } from '../../server/modules/billing/billing.repo';
import { subscriptionPlanReader } from '../../server/modules/billing/plans';
import { btcpaySignature } from '../../server/modules/billing/webhooks';
import { btcpayDouble, stripeDouble, type Double, type StripeDouble } from '../fixtures/payment-doubles';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';

const WHSEC = 'whsec_test_double_secret';
const BTCPAY_SECRET = 'btcpay-webhook-secret';
const stripe = new Stripe('sk_test_double');

type Auth = { authorization: string };

describe.each(dbTargets())('billing with Stripe and BTCPay doubles on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let stripeApi: StripeDouble;
  let btcpayApi: Double;
  let ann: Auth;
  let bob: Auth;

  beforeAll(async () => {
    stripeApi = await stripeDouble();
    btcpayApi = await btcpayDouble('store1', 'btc-key');
    t = await startTestApp(target, {
      STRIPE_SECRET_KEY: 'sk_test_double',
      STRIPE_WEBHOOK_SECRET: WHSEC,
      STRIPE_API_URL: stripeApi.url,
      BTCPAY_URL: btcpayApi.url,
      BTCPAY_API_KEY: 'btc-key',
      BTCPAY_STORE_ID: 'store1',
      BTCPAY_WEBHOOK_SECRET: BTCPAY_SECRET,
    });
    ann = await signUpAndLogIn(t.app, 'ann');
    bob = await signUpAndLogIn(t.app, 'bob');
  });
  afterAll(async () => {
    await t.close();
    await stripeApi.close();
    await btcpayApi.close();
  });

  const createSession = (auth: Auth | undefined, payload: object) =>
    t.app.inject({
      method: 'POST',
      url: '/api/subscriptions/create-payment-session',
      ...(auth ? { headers: auth } : {}),
      payload,
    });
  const me = async (auth: Auth) => {
    const res = await t.app.inject({ url: '/api/subscriptions/me', headers: auth });
    expect(res.statusCode).toBe(200);
    return SubscriptionView.parse(res.json());
  };
  /** What Stripe holds once it sends `event`: the service re-reads a subscription from there. */
  type HookEvent = { id?: string; type?: string; data?: { object?: Record<string, unknown> } };
  const mirror = (event: HookEvent) => {
    const object = event.data?.object ?? {};
    if (event.type?.startsWith('customer.subscription.') === true && typeof object.id === 'string') {
      stripeApi.subscriptions.set(object.id, object);
    } else if (event.type === 'invoice.payment_failed' && typeof object.subscription === 'string') {
      const sub = stripeApi.subscriptions.get(object.subscription) ?? {};
      stripeApi.subscriptions.set(object.subscription, { ...sub, status: 'past_due' });
    }
  };
  const stripeHook = (
    event: HookEvent & Record<string, unknown>,
    opts: { secret?: string; timestamp?: number; header?: string | null } = {},
  ) => {
    mirror(event);
    const payload = JSON.stringify(event);
    const header =
      opts.header === undefined
        ? stripe.webhooks.generateTestHeaderString({
            payload,
            secret: opts.secret ?? WHSEC,
            ...(opts.timestamp !== undefined ? { timestamp: opts.timestamp } : {}),
          })
        : opts.header;
    return t.app.inject({
      method: 'POST',
      url: '/api/subscriptions/webhooks/stripe',
      headers: {
        'content-type': 'application/json',
        ...(header === null ? {} : { 'stripe-signature': header }),
      },
      payload,
    });
  };
  const btcpayHook = (event: object, secret = BTCPAY_SECRET) => {
    const payload = JSON.stringify(event);
    return t.app.inject({
      method: 'POST',
      url: '/api/subscriptions/webhooks/btcpay',
      headers: { 'content-type': 'application/json', 'btcpay-sig': btcpaySignature(payload, secret) },
      payload,
    });
  };
  const plans = () => subscriptionPlanReader(new BillingRepo(t.database.db));
  const userId = async (auth: Auth) => {
    const res = await t.app.inject({ url: '/api/users/me', headers: auth });
    return (res.json() as { id: string }).id;
  };

  let cardSessionId = '';

  it('refuses anonymous and malformed session requests', async () => {
    expect((await createSession(undefined, { planType: 'monthly', provider: 'card' })).statusCode).toBe(401);
    const bad = await createSession(ann, { planType: 'weekly', provider: 'paypal' });
    expect(bad.statusCode).toBe(422);
    const locs = (bad.json() as { detail: { loc: string[] }[] }).detail.map((d) => d.loc.join('.'));
    expect(locs).toEqual(expect.arrayContaining(['body.planType', 'body.provider']));
  });

  it('opens a Stripe Checkout subscription with the 7-day trial', async () => {
    expect(await me(ann)).toMatchObject({ status: 'inactive', current_period_end: null });
    const res = await createSession(ann, { planType: 'yearly', provider: 'card' });
    expect(res.statusCode).toBe(200);
    const url = (res.json() as { checkout_url: string }).checkout_url;
    expect(url).toMatch(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/);
    cardSessionId = url.split('/').pop() ?? '';
    const sent = new URLSearchParams(stripeApi.received.at(-1)?.body);
    expect(sent.get('mode')).toBe('subscription');
    expect(sent.get('subscription_data[trial_period_days]')).toBe('7');
    expect(sent.get('line_items[0][price_data][unit_amount]')).toBe('179000');
    expect(sent.get('line_items[0][price_data][recurring][interval]')).toBe('year');
    expect(sent.get('client_reference_id')).toBe(await userId(ann));
  });

  const completed = (id: string) => ({
    id,
    object: 'event',
    type: 'checkout.session.completed',
    data: { object: { id: cardSessionId, object: 'checkout.session', subscription: 'sub_ann' } },
  });

  it('refuses forged, unsigned and stale Stripe events and changes nothing', async () => {
    expect((await stripeHook(completed('evt_forged'), { secret: 'whsec_wrong' })).statusCode).toBe(400);
    expect((await stripeHook(completed('evt_unsigned'), { header: null })).statusCode).toBe(400);
    const stale = Math.floor(Date.now() / 1000) - 301;
    const res = await stripeHook(completed('evt_stale'), { timestamp: stale });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ detail: 'Invalid signature.' });
    expect((await me(ann)).status).toBe('inactive');
    expect(await plans().planOf(await userId(ann))).toBe('free');
  });

  it('activates Premium on checkout.session.completed, once', async () => {
    const res = await stripeHook(completed('evt_1'));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ received: true, applied: true });
    const view = await me(ann);
    expect(view).toMatchObject({ status: 'active', plan: 'yearly', provider: 'card' });
    const trialDays = (Date.parse(view.trial_end ?? '') - Date.now()) / 86_400_000;
    expect(trialDays).toBeGreaterThan(6.9);
    expect(trialDays).toBeLessThanOrEqual(7);
    expect(await plans().limitsOf(await userId(ann))).toMatchObject({ activeRules: null });
    expect((await me(bob)).status).toBe('inactive');
  });

  it('cancels the card subscription at Stripe at the end of its period, once', async () => {
    const cancel = (auth: Auth) =>
      t.app.inject({ method: 'POST', url: '/api/subscriptions/cancel', headers: auth });
    expect((await cancel(bob)).json()).toEqual({ detail: 'You have no Premium subscription to cancel.' });
    const trialEnd = (await me(ann)).trial_end ?? '';
    const end = Math.floor(Date.parse(trialEnd) / 1000);
    // Stripe unreachable or not knowing it: a 503 that says so, and nothing changes here.
    const down = await cancel(ann);
    expect(down.statusCode).toBe(503);
    expect(down.json()).toEqual({ detail: 'Stripe is unavailable right now. Please try again later.' });
    expect((await me(ann)).subscriptions[0]?.cancel_at_period_end).toBe(false);

    stripeApi.subscriptions.set('sub_ann', {
      customer: 'cus_ann',
      status: 'trialing',
      trial_end: end,
      items: { data: [{ id: 'si_ann', current_period_end: end }] },
    });
    const res = await cancel(ann);
    expect(res.statusCode).toBe(200);
    const message = `Your card subscription is cancelled: the free trial runs until ${trialEnd.slice(0, 10)} and nothing is charged.`;
    expect(CancelAnswer.parse(res.json())).toEqual({ action: 'scheduled', message });
    const asked = stripeApi.received.filter(
      (r) => r.method === 'POST' && r.path === '/v1/subscriptions/sub_ann',
    );
    expect(asked).toHaveLength(2);
    expect(new URLSearchParams(asked[1]?.body).get('cancel_at_period_end')).toBe('true');
    expect(stripeApi.subscriptions.get('sub_ann')?.cancel_at_period_end).toBe(true);
    // Premium stays until the trial ends; the plan says it ends rather than renews.
    const view = await me(ann);
    expect(view).toMatchObject({ status: 'active', provider: 'card' });
    expect(view.subscriptions).toEqual([
      expect.objectContaining({
        provider: 'card',
        cancel_at_period_end: true,
        current_period_end: new Date(end * 1000).toISOString(),
      }),
    ]);
    // Asked again, it says the same without asking Stripe again.
    expect((await cancel(ann)).json()).toEqual({ action: 'scheduled', message });
    expect(
      stripeApi.received.filter((r) => r.path === '/v1/subscriptions/sub_ann' && r.method === 'POST'),
    ).toHaveLength(2);
  });

  it('follows subscription updates, failed payments and deletion; replays change nothing', async () => {
    const end = Math.floor(Date.now() / 1000) + 365 * 86_400;
    const updated = {
      id: 'evt_2',
      type: 'customer.subscription.updated',
      data: {
        object: {
          id: 'sub_ann',
          object: 'subscription',
          status: 'active',
          trial_end: null,
          items: { data: [{ current_period_end: end }] },
        },
      },
    };
    expect((await stripeHook(updated)).statusCode).toBe(200);
    expect((await me(ann)).current_period_end).toBe(new Date(end * 1000).toISOString());

    const failed = {
      id: 'evt_3',
      type: 'invoice.payment_failed',
      data: { object: { subscription: 'sub_ann' } },
    };
    expect((await stripeHook(failed)).statusCode).toBe(200);
    expect((await me(ann)).status).toBe('past_due');

    // The earlier "updated" event delivered again must not make the subscription active again.
    expect((await stripeHook(updated)).json()).toEqual({ received: true, applied: false });
    expect((await me(ann)).status).toBe('past_due');

    const deleted = {
      id: 'evt_4',
      type: 'customer.subscription.deleted',
      data: { object: { id: 'sub_ann', status: 'canceled' } },
    };
    expect((await stripeHook(deleted)).statusCode).toBe(200);
    expect((await me(ann)).status).toBe('canceled');
    expect((await stripeHook(completed('evt_1'))).json()).toEqual({ received: true, applied: false });
    expect((await me(ann)).status).toBe('canceled');
    expect(await plans().planOf(await userId(ann))).toBe('free');
  });

  it('acknowledges and ignores unknown event types', async () => {
    const res = await stripeHook({
      id: 'evt_5',
      type: 'customer.created',
      data: { object: { id: 'cus_1' } },
    });
    expect(res.statusCode).toBe(200);
    expect((await me(ann)).status).toBe('canceled');
  });

  it('opens a BTCPay invoice and settles it through the signed webhook', async () => {
    const res = await createSession(bob, { planType: 'monthly', provider: 'crypto' });
    expect(res.statusCode).toBe(200);
    const url = (res.json() as { checkout_url: string }).checkout_url;
    const invoiceId = url.split('/').pop() ?? '';
    const sent = JSON.parse(btcpayApi.received.at(-1)?.body ?? '{}') as { amount: string; currency: string };
    expect(sent).toMatchObject({ amount: '179', currency: 'USD' });

    const settled = {
      deliveryId: 'd1',
      originalDeliveryId: 'd1',
      type: 'InvoiceSettled',
      invoiceId,
      storeId: 'store1',
    };
    expect((await btcpayHook(settled, 'forged')).statusCode).toBe(400);
    expect((await me(bob)).status).toBe('inactive');
    expect((await btcpayHook(settled)).json()).toEqual({ received: true, applied: true });
    const view = await me(bob);
    expect(view).toMatchObject({ status: 'active', plan: 'monthly', provider: 'crypto', trial_end: null });
    const days = (Date.parse(view.current_period_end ?? '') - Date.now()) / 86_400_000;
    expect(Math.round(days)).toBe(30);

    // A redelivery keeps the original delivery id: the period is not extended twice.
    const again = { ...settled, deliveryId: 'd2', isRedelivery: true };
    expect((await btcpayHook(again)).json()).toEqual({ received: true, applied: false });
    expect((await me(bob)).current_period_end).toBe(view.current_period_end);
  });

  it('records expired and invalid invoices without touching the subscription', async () => {
    for (const type of ['InvoiceExpired', 'InvoiceInvalid', 'InvoiceCreated']) {
      const res = await createSession(bob, { planType: 'yearly', provider: 'crypto' });
      const invoiceId = (res.json() as { checkout_url: string }).checkout_url.split('/').pop();
      const hook = await btcpayHook({ deliveryId: `x-${type}`, type, invoiceId });
      expect(hook.statusCode).toBe(200);
      expect((await me(bob)).plan).toBe('monthly');
    }
  });

  const planLines = async (auth: Auth) => {
    const res = await t.app.inject({ url: '/api/account/activity?limit=100', headers: auth });
    expect(res.statusCode).toBe(200);
    return ActivityList.parse(res.json())
      .filter((e) => e.kind === 'plan_changed')
      .map((e) => e.text)
      .reverse();
  };

  it("writes each real change a Stripe or BTCPay event makes to the owner's activity log, once", async () => {
    const cleo = await signUpAndLogIn(t.app, 'cleo');
    const day = (s: number) => new Date(s * 1000).toISOString().slice(0, 10);
    const res = await createSession(cleo, { planType: 'monthly', provider: 'card' });
    const sessionId = (res.json() as { checkout_url: string }).checkout_url.split('/').pop() ?? '';
    const hook = async (event: HookEvent & Record<string, unknown>) => {
      const answer = await stripeHook(event);
      expect(answer.statusCode, answer.body).toBe(200);
      return (answer.json() as { applied: boolean }).applied;
    };
    const sub = (fields: object, previous?: object) => ({
      object: { id: 'sub_cleo', object: 'subscription', status: 'active', ...fields },
      ...(previous === undefined ? {} : { previous_attributes: previous }),
    });
    expect(
      await hook({
        id: 'evt_c1',
        type: 'checkout.session.completed',
        data: { object: { id: sessionId, object: 'checkout.session', subscription: 'sub_cleo' } },
      }),
    ).toBe(true);
    const end1 = Math.floor(Date.now() / 1000) + 30 * 86_400;
    const end2 = end1 + 30 * 86_400;
    const renewal = {
      id: 'evt_c2',
      type: 'customer.subscription.updated',
      data: sub({ current_period_end: end1, trial_end: null }),
    };
    expect(await hook(renewal)).toBe(true);
    // Stripe sends the same event again: acknowledged, nothing new in the log.
    expect(await hook(renewal)).toBe(false);
    // An update that changes nothing the product shows (same status, same period end) is no line either.
    expect(
      await hook({
        id: 'evt_c3',
        type: 'customer.subscription.updated',
        data: sub({ current_period_end: end1 }, { metadata: {} }),
      }),
    ).toBe(true);
    const failed = {
      id: 'evt_c4',
      type: 'invoice.payment_failed',
      data: { object: { subscription: 'sub_cleo' } },
    };
    expect(await hook(failed)).toBe(true);
    expect(await hook(failed)).toBe(false);
    // A second failed attempt while already on hold changes nothing.
    expect(await hook({ ...failed, id: 'evt_c5' })).toBe(true);
    expect((await me(cleo)).status).toBe('past_due');
    expect(
      await hook({
        id: 'evt_c6',
        type: 'customer.subscription.updated',
        data: sub({ current_period_end: end2 }, { status: 'past_due' }),
      }),
    ).toBe(true);
    const cancel = {
      id: 'evt_c7',
      type: 'customer.subscription.updated',
      data: sub({ current_period_end: end2, cancel_at_period_end: true }, { cancel_at_period_end: false }),
    };
    expect(await hook(cancel)).toBe(true);
    expect(await hook(cancel)).toBe(false);
    expect((await me(cleo)).status).toBe('active');
    expect(
      await hook({
        id: 'evt_c8',
        type: 'customer.subscription.deleted',
        data: sub({ status: 'canceled', current_period_end: end2 }),
      }),
    ).toBe(true);
    expect((await me(cleo)).status).toBe('canceled');

    // BTCPay: a settled invoice is a line; the same invoice settled again by a new delivery adds neither
    // a period nor a line; an expired invoice leaves the plan, and the log, as they were.
    const crypto = await createSession(cleo, { planType: 'monthly', provider: 'crypto' });
    const invoiceId = (crypto.json() as { checkout_url: string }).checkout_url.split('/').pop() ?? '';
    const settled = { deliveryId: 'c-d1', type: 'InvoiceSettled', invoiceId, storeId: 'store1' };
    expect((await btcpayHook(settled)).json()).toEqual({ received: true, applied: true });
    const paidUntil = (await me(cleo)).current_period_end ?? '';
    expect((await btcpayHook({ ...settled, deliveryId: 'c-d2' })).json()).toEqual({
      received: true,
      applied: true,
    });
    expect((await me(cleo)).current_period_end).toBe(paidUntil);
    const late = await createSession(cleo, { planType: 'yearly', provider: 'crypto' });
    const lateId = (late.json() as { checkout_url: string }).checkout_url.split('/').pop() ?? '';
    expect(
      (await btcpayHook({ deliveryId: 'c-d3', type: 'InvoiceExpired', invoiceId: lateId })).statusCode,
    ).toBe(200);

    expect(await planLines(cleo)).toEqual([
      'Plan: Premium monthly, paid by card',
      `Plan: Premium monthly renewed, paid until ${day(end1)}`,
      'Plan: Premium monthly on hold: a card payment failed',
      `Plan: Premium monthly active again, until ${day(end2)}`,
      `Plan: Premium monthly canceled: it ends on ${day(end2)}, then Free`,
      'Plan: Free (Premium monthly canceled)',
      `Plan: Premium monthly, paid by crypto, until ${paidUntil.slice(0, 10)}`,
    ]);
    // Nobody else's log heard of it.
    expect((await planLines(bob)).some((l) => l.includes('card payment failed'))).toBe(false);
  });
});

describe.each(dbTargets())('billing with providers configured but unreachable on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(target, {
      STRIPE_SECRET_KEY: 'sk_test_double',
      STRIPE_WEBHOOK_SECRET: WHSEC,
      STRIPE_API_URL: 'http://127.0.0.1:9',
      BTCPAY_URL: 'http://127.0.0.1:9',
      BTCPAY_API_KEY: 'k',
      BTCPAY_STORE_ID: 's',
    });
  });
  afterAll(() => t.close());

  it('starts, serves the rest and answers 503 for a checkout', async () => {
    expect((await t.app.inject({ url: '/api/healthz' })).statusCode).toBe(200);
    const auth = await signUpAndLogIn(t.app, 'cid');
    for (const provider of ['card', 'crypto']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/subscriptions/create-payment-session',
        headers: auth,
        payload: { planType: 'monthly', provider },
      });
      expect(res.statusCode, provider).toBe(503);
      expect(res.json()).toEqual({ detail: 'The payment provider is unavailable. Please try again later.' });
    }
  });
});

describe.each(dbTargets())('sandbox checkout on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(target);
  });
  afterAll(() => t.close());

  it('serves a TEST MODE page whose Pay drives the webhook path', async () => {
    const auth = await signUpAndLogIn(t.app, 'dee');
    for (const [provider, next] of [
      ['card', '/payment/success'],
      ['crypto', '/payment/pending'],
    ] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/subscriptions/create-payment-session',
        headers: auth,
        payload: { planType: 'monthly', provider },
      });
      const url = (res.json() as { checkout_url: string }).checkout_url;
      expect(url).toMatch(/^\/api\/subscriptions\/sandbox\/[0-9a-f-]{36}$/);
      const page = await t.app.inject({ url });
      expect(page.body).toContain('TEST MODE');
      expect(page.body).toContain(`action="${url}/cancel"`);
      // Its inline styles and its form are allowed, and nothing else (no script).
      expect(page.headers['content-security-policy']).toBe(
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
      );
      expect(page.headers['referrer-policy']).toBe('same-origin');
      // A browser posts the form with this origin's Origin header (refused when it reads null).
      const pay = await t.app.inject({
        method: 'POST',
        url: `${url}/pay`,
        headers: { origin: 'http://localhost:80', host: 'localhost:80' },
      });
      expect(pay.statusCode).toBe(303);
      expect(pay.headers.location).toBe(next);
      const view = SubscriptionView.parse(
        (await t.app.inject({ url: '/api/subscriptions/me', headers: auth })).json(),
      );
      expect(view).toMatchObject({ status: 'active', provider });
    }
    // Cancelling in the sandbox ends Premium now.
    const cancelled = await t.app.inject({ method: 'POST', url: '/api/subscriptions/cancel', headers: auth });
    expect(cancelled.statusCode).toBe(200);
    expect(CancelAnswer.parse(cancelled.json())).toEqual({
      action: 'ended',
      message: 'Premium cancelled: it ended now. The sandbox charged nothing and renews nothing.',
    });
    const after = SubscriptionView.parse(
      (await t.app.inject({ url: '/api/subscriptions/me', headers: auth })).json(),
    );
    expect(after.status).not.toBe('active');
    const again = await t.app.inject({ method: 'POST', url: '/api/subscriptions/cancel', headers: auth });
    expect(again.statusCode).toBe(409);
    expect((await t.app.inject({ url: '/api/subscriptions/sandbox/not-a-checkout' })).statusCode).toBe(404);
    const forged = await t.app.inject({
      method: 'POST',
      url: '/api/subscriptions/webhooks/btcpay',
      headers: { 'content-type': 'application/json', 'btcpay-sig': 'sha256=00' },
      payload: '{}',
    });
    expect(forged.statusCode).toBe(400);
  });
});
