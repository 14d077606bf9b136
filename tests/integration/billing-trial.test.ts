import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityList } from '../../src/contracts/activity';
import { CancelAnswer, ChangePlanAnswer, SubscriptionView } from '../../src/contracts/billing';
import { BillingRepo } from '../../server/modules/billing/billing.repo';
import { subscriptionPlanReader } from '../../server/modules/billing/plans';
import { btcpaySignature } from '../../server/modules/billing/webhooks';
import { btcpayDouble, stripeDouble, type Double, type StripeDouble } from '../fixtures/payment-doubles';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';

const WHSEC = 'whsec_trial_secret';
const BTCPAY_SECRET = 'btcpay-trial-secret';
const stripe = new Stripe('sk_test_double');
const DAY = 86_400_000;
type Auth = { authorization: string };

/**
 * One free trial per account, one card subscription per account, and a crypto period beside it: against
 * the Stripe and BTCPay doubles, with events signed as the providers sign them.
 */
describe.each(dbTargets())('one trial, one subscription per way of paying, on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let stripeApi: StripeDouble;
  let btcpayApi: Double;

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
  });
  afterAll(async () => {
    await t.close();
    await stripeApi.close();
    await btcpayApi.close();
  });

  let eventNo = 0;
  /** A Stripe event, signed with the webhook secret as Stripe signs it. */
  const stripeHook = async (type: string, object: Record<string, unknown>) => {
    eventNo += 1;
    const payload = JSON.stringify({
      id: `evt_trial_${eventNo}`,
      object: 'event',
      type,
      created: Math.floor(Date.now() / 1000),
      data: { object },
    });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/subscriptions/webhooks/stripe',
      headers: {
        'content-type': 'application/json',
        'stripe-signature': stripe.webhooks.generateTestHeaderString({ payload, secret: WHSEC }),
      },
      payload,
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ applied: boolean }>();
  };
  const btcpaySettled = async (invoiceId: string) => {
    eventNo += 1;
    const payload = JSON.stringify({ deliveryId: `d_trial_${eventNo}`, type: 'InvoiceSettled', invoiceId });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/subscriptions/webhooks/btcpay',
      headers: { 'content-type': 'application/json', 'btcpay-sig': btcpaySignature(payload, BTCPAY_SECRET) },
      payload,
    });
    expect(res.statusCode, res.body).toBe(200);
  };
  const checkout = (auth: Auth, planType: 'monthly' | 'yearly', provider: 'card' | 'crypto' = 'card') =>
    t.app.inject({
      method: 'POST',
      url: '/api/subscriptions/create-payment-session',
      headers: auth,
      payload: { planType, provider },
    });
  /** The id at the end of a checkout's address: the Stripe session, or the BTCPay invoice. */
  const opened = async (auth: Auth, planType: 'monthly' | 'yearly', provider: 'card' | 'crypto' = 'card') => {
    const res = await checkout(auth, planType, provider);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ checkout_url: string }>().checkout_url.split('/').pop() ?? '';
  };
  /** The customer pays at Stripe, and Stripe says so. */
  const pay = async (sessionId: string) => {
    const paid = stripeApi.complete(sessionId);
    expect((await stripeHook('checkout.session.completed', paid.session)).applied).toBe(true);
    return paid.subscription as { id: string; customer: string };
  };
  /** Stripe ends a subscription (its period or trial over after a cancellation), and says so. */
  const stripeEnds = async (subId: string) => {
    const sub = { ...stripeApi.subscriptions.get(subId), id: subId, status: 'canceled' };
    stripeApi.subscriptions.set(subId, sub);
    await stripeHook('customer.subscription.deleted', sub);
  };
  const me = async (auth: Auth) =>
    SubscriptionView.parse((await t.app.inject({ url: '/api/subscriptions/me', headers: auth })).json());
  const cancel = (auth: Auth) =>
    t.app.inject({ method: 'POST', url: '/api/subscriptions/cancel', headers: auth });
  const changePlan = (auth: Auth, planType: 'monthly' | 'yearly') =>
    t.app.inject({
      method: 'POST',
      url: '/api/subscriptions/change-plan',
      headers: auth,
      payload: { planType },
    });
  const trialDays = (sessionId: string) =>
    stripeApi.sessions.get(sessionId)?.params['subscription_data[trial_period_days]'];
  const userId = async (auth: Auth) =>
    (await t.app.inject({ url: '/api/users/me', headers: auth })).json<{ id: string }>().id;
  const isoDay = (iso: string | null) => (iso ?? '').slice(0, 10);

  it('gives the 7-day trial once: three rounds of subscribe, cancel, subscribe, all as one Stripe customer', async () => {
    const auth = await signUpAndLogIn(t.app, 'tara');
    const sessions: string[] = [];
    let customer = '';
    for (let round = 0; round < 3; round += 1) {
      const sessionId = await opened(auth, 'monthly');
      sessions.push(sessionId);
      const params = stripeApi.sessions.get(sessionId)?.params ?? {};
      // The first checkout makes the customer; every later one is that customer's.
      if (round === 0) expect(params.customer).toBeUndefined();
      else expect(params.customer).toBe(customer);
      const sub = await pay(sessionId);
      customer = sub.customer;
      const view = await me(auth);
      expect(view).toMatchObject({ status: 'active', provider: 'card', trial_used: true });
      if (round === 0) {
        expect(Date.parse(view.trial_end ?? '') - Date.now()).toBeGreaterThan(6.9 * DAY);
      } else {
        // No trial: the first month is paid at once.
        expect(view.trial_end).toBeNull();
        expect(Math.round((Date.parse(view.current_period_end ?? '') - Date.now()) / DAY)).toBe(30);
      }
      const cancelled = await cancel(auth);
      expect(cancelled.statusCode, cancelled.body).toBe(200);
      expect(CancelAnswer.parse(cancelled.json()).action).toBe('scheduled');
      expect(stripeApi.subscriptions.get(sub.id)?.cancel_at_period_end).toBe(true);
      await stripeEnds(sub.id);
      expect((await me(auth)).status).toBe('canceled');
    }
    expect(sessions.map(trialDays)).toEqual(['7', undefined, undefined]);
    // The account remembers its customer and its trial in the database, for every server process.
    const account = await new BillingRepo(t.database.db).account(await userId(auth));
    expect(account?.stripeCustomerId).toBe(customer);
    expect(account?.trialUsedAt).not.toBeNull();
  });

  it('refuses a checkout while Premium is active, saying what is active and until when', async () => {
    const auth = await signUpAndLogIn(t.app, 'uma');
    const sub = await pay(await opened(auth, 'monthly'));
    const until = isoDay((await me(auth)).current_period_end);
    const sessionsBefore = stripeApi.sessions.size;
    const same = await checkout(auth, 'monthly');
    expect(same.statusCode).toBe(409);
    expect(same.json()).toEqual({
      detail: `Premium is active until ${until} (monthly, card, free trial) and renews by itself: there is nothing more to buy. plan shows it.`,
    });
    const other = await checkout(auth, 'yearly');
    expect(other.json()).toEqual({
      detail: `Premium is active until ${until} (monthly, card, free trial). To move to yearly, switch its plan (plan switch yearly) instead of buying a second subscription.`,
    });
    const crypto = await checkout(auth, 'yearly', 'crypto');
    expect(crypto.statusCode).toBe(409);
    expect(crypto.json()).toEqual({
      detail: `Premium is active until ${until} (monthly, card, free trial) and renews by itself. To pay by crypto instead, cancel it first (plan cancel): a crypto payment is then added after its end.`,
    });
    // Nothing was opened at Stripe for any of them.
    expect(stripeApi.sessions.size).toBe(sessionsBefore);
    // Once it is cancelled, a crypto payment may add time after its end.
    expect((await cancel(auth)).statusCode).toBe(200);
    const invoiceId = await opened(auth, 'monthly', 'crypto');
    await btcpaySettled(invoiceId);
    const view = await me(auth);
    const card = view.subscriptions.find((e) => e.provider === 'card');
    const paid = view.subscriptions.find((e) => e.provider === 'crypto');
    expect(card).toMatchObject({ status: 'active', cancel_at_period_end: true });
    expect(Date.parse(paid?.current_period_end ?? '') - Date.parse(card?.current_period_end ?? '')).toBe(
      30 * DAY,
    );
    expect(stripeApi.subscriptions.get(sub.id)?.cancel_at_period_end).toBe(true);
  });

  it('keeps a paid crypto period when a card subscription starts beside it, and ends each by its own provider', async () => {
    const auth = await signUpAndLogIn(t.app, 'vic');
    // Both checkouts opened while the account was Free; the crypto one is paid first.
    const invoiceId = await opened(auth, 'yearly', 'crypto');
    const sessionId = await opened(auth, 'monthly', 'card');
    await btcpaySettled(invoiceId);
    const cryptoEnd = (await me(auth)).current_period_end;
    // With the crypto period paid, a new card checkout is refused: it would charge for covered time.
    const refused = await checkout(auth, 'monthly');
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({
      detail: `Premium is active until ${isoDay(cryptoEnd)} (yearly, crypto). A card subscription started now would charge for time that is already covered: start it once this ends, or add time by crypto (upgrade yearly crypto).`,
    });
    // The card checkout opened before it is paid all the same: the crypto period survives it.
    const sub = await pay(sessionId);
    let view = await me(auth);
    expect(view.status).toBe('active');
    expect(view.subscriptions.map((e) => [e.provider, e.status])).toEqual([
      ['crypto', 'active'],
      ['card', 'active'],
    ]);
    expect(view.subscriptions[0]?.current_period_end).toBe(cryptoEnd);

    // plan cancel reaches the card subscription, at its period's end; the crypto period runs out by itself.
    const cancelled = await cancel(auth);
    expect(CancelAnswer.parse(cancelled.json()).message).toBe(
      `Your card subscription is cancelled: the free trial runs until ${isoDay(view.subscriptions[1]?.trial_end ?? null)} and nothing is charged. Your crypto period runs out by itself on ${isoDay(cryptoEnd)}.`,
    );
    // A Stripe event naming the crypto invoice's id changes no crypto row.
    stripeApi.subscriptions.set(invoiceId, { id: invoiceId, status: 'canceled' });
    await stripeHook('customer.subscription.updated', {
      id: invoiceId,
      object: 'subscription',
      status: 'canceled',
    });
    await stripeEnds(sub.id);
    view = await me(auth);
    expect(view).toMatchObject({ status: 'active', provider: 'crypto', current_period_end: cryptoEnd });
    expect(view.subscriptions.map((e) => e.provider)).toEqual(['crypto']);
    expect(await subscriptionPlanReader(new BillingRepo(t.database.db)).planOf(await userId(auth))).toBe(
      'premium',
    );
  });

  it('switches monthly and yearly on the same Stripe subscription, and a declined card changes nothing', async () => {
    const auth = await signUpAndLogIn(t.app, 'wes');
    const sub = await pay(await opened(auth, 'monthly'));
    const trialEnd = isoDay((await me(auth)).trial_end);
    const sessionsBefore = stripeApi.sessions.size;
    const toYearly = await changePlan(auth, 'yearly');
    expect(toYearly.statusCode, toYearly.body).toBe(200);
    const answer = ChangePlanAnswer.parse(toYearly.json());
    expect(answer.message).toBe(
      `Your card subscription is now yearly ($1790 per year). The free trial still ends on ${trialEnd}; the first charge is $1790 then.`,
    );
    expect(answer.subscription).toMatchObject({ plan: 'yearly', provider: 'card' });
    const sent = stripeApi.received.filter(
      (r) => r.method === 'POST' && r.path === `/v1/subscriptions/${sub.id}`,
    );
    expect(sent).toHaveLength(1);
    const form = new URLSearchParams(sent[0]?.body);
    expect(form.get('items[0][price_data][recurring][interval]')).toBe('year');
    expect(form.get('items[0][price_data][unit_amount]')).toBe('179000');
    expect(form.get('payment_behavior')).toBe('error_if_incomplete');
    // The item keeps its product; no second subscription, no second checkout.
    const item = (
      stripeApi.subscriptions.get(sub.id)?.items as { data: { id: string; price: { product: string } }[] }
    ).data[0];
    expect(form.get('items[0][id]')).toBe(item?.id);
    expect(form.get('items[0][price_data][product]')).toBe(item?.price.product);
    expect(stripeApi.sessions.size).toBe(sessionsBefore);
    expect((await changePlan(auth, 'yearly')).json()).toEqual({
      detail: 'Your card subscription is yearly already.',
    });

    // After the trial: a switch is charged at once, and a declined card leaves the plan as it was.
    const afterTrial = {
      ...stripeApi.subscriptions.get(sub.id),
      id: sub.id,
      status: 'active',
      trial_end: null,
    };
    stripeApi.subscriptions.set(sub.id, afterTrial);
    await stripeHook('customer.subscription.updated', afterTrial);
    stripeApi.declineNextCharge();
    const declined = await changePlan(auth, 'monthly');
    expect(declined.statusCode).toBe(409);
    expect(declined.json()).toEqual({
      detail:
        'Stripe could not take the payment for the monthly plan: your subscription stays yearly, and nothing was charged.',
    });
    expect((await me(auth)).plan).toBe('yearly');
    const toMonthly = ChangePlanAnswer.parse((await changePlan(auth, 'monthly')).json());
    expect(toMonthly.subscription.plan).toBe('monthly');
    expect(Math.round((Date.parse(toMonthly.subscription.current_period_end ?? '') - Date.now()) / DAY)).toBe(
      30,
    );
    expect(toMonthly.message).toMatch(
      /^Your card subscription is now monthly \(\$179 per month\): Stripe credited/,
    );
    const lines = ActivityList.parse(
      (await t.app.inject({ url: '/api/account/activity?limit=50', headers: auth })).json(),
    )
      .filter((e) => e.kind === 'plan_changed')
      .map((e) => e.text);
    expect(lines).toContain('Plan: Premium monthly switched to yearly (card)');
    expect(lines).toContain('Plan: Premium yearly switched to monthly (card)');
  });

  it('30 checkouts of one account at once: one payable session at most, and one trial at most', async () => {
    const auth = await signUpAndLogIn(t.app, 'xan');
    const before = new Set(stripeApi.sessions.keys());
    const answers = await Promise.all(Array.from({ length: 30 }, () => checkout(auth, 'monthly')));
    expect(answers.every((a) => a.statusCode === 200 || a.statusCode === 409)).toBe(true);
    expect(answers.some((a) => a.statusCode === 200)).toBe(true);
    for (const refused of answers.filter((a) => a.statusCode === 409)) {
      expect(refused.json()).toEqual({
        detail:
          'Another checkout or plan change for your account is under way. Please try again in a moment.',
      });
    }
    const made = [...stripeApi.sessions.values()].filter((s) => !before.has(s.id));
    const open = made.filter((s) => s.status === 'open');
    expect(open).toHaveLength(1);
    // Every session but the open one was expired at Stripe: none of them can be paid.
    for (const s of made.filter((m) => m.status !== 'open')) {
      expect(s.status).toBe('expired');
      expect(() => stripeApi.complete(s.id)).toThrow();
    }
    const sub = await pay(open[0]?.id ?? '');
    expect(await me(auth)).toMatchObject({ status: 'active', trial_used: true });
    // Cancelled and ended, 30 more at once: none offers the trial again.
    await cancel(auth);
    await stripeEnds(sub.id);
    const again = new Set(stripeApi.sessions.keys());
    await Promise.all(Array.from({ length: 30 }, () => checkout(auth, 'yearly')));
    const second = [...stripeApi.sessions.values()].filter((s) => !again.has(s.id));
    expect(second.length).toBeGreaterThan(0);
    expect(second.every((s) => trialDays(s.id) === undefined)).toBe(true);
    expect(second.filter((s) => s.status === 'open')).toHaveLength(1);
  });

  it('a card subscription on hold is cancelled now, before a new checkout may start beside it', async () => {
    const auth = await signUpAndLogIn(t.app, 'hal');
    const sub = await pay(await opened(auth, 'monthly'));
    // The trial ends and its first charge fails: Premium is on hold, and Stripe retries the charge.
    stripeApi.subscriptions.set(sub.id, {
      ...stripeApi.subscriptions.get(sub.id),
      status: 'past_due',
      trial_end: null,
    });
    await stripeHook('invoice.payment_failed', { object: 'invoice', subscription: sub.id });
    expect((await me(auth)).status).toBe('past_due');
    const refused = await checkout(auth, 'monthly');
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({
      detail:
        'Your card subscription is on hold: a payment failed, and Stripe retries it. Cancel it first (plan cancel) to start over, so that it stops charging beside a new one.',
    });
    const cancelled = await cancel(auth);
    expect(cancelled.json()).toEqual({
      action: 'ended',
      message:
        'Your card subscription, on hold since a payment failed, is cancelled: nothing more is charged.',
    });
    expect(
      stripeApi.received.some((r) => r.method === 'DELETE' && r.path === `/v1/subscriptions/${sub.id}`),
    ).toBe(true);
    expect(stripeApi.subscriptions.get(sub.id)?.status).toBe('canceled');
    expect((await me(auth)).status).toBe('canceled');
    // Now a new checkout may start: as the same customer, without a second trial.
    const again = await opened(auth, 'monthly');
    expect(stripeApi.sessions.get(again)?.params.customer).toBe(sub.customer);
    expect(trialDays(again)).toBeUndefined();
  });

  it("an account from before customers were recorded checks out as its old subscription's customer", async () => {
    const auth = await signUpAndLogIn(t.app, 'old');
    const repo = new BillingRepo(t.database.db);
    const id = await userId(auth);
    // As the migration leaves it: an ended card subscription, its trial recorded, no customer yet.
    await repo.upsertSubscription(id, 'card', {
      status: 'canceled',
      plan: 'monthly',
      gateway: 'stripe',
      externalId: 'sub_from_before',
      currentPeriodEnd: new Date(Date.now() - DAY),
    });
    await repo.markTrialUsed(id, new Date(Date.now() - 60 * DAY));
    stripeApi.subscriptions.set('sub_from_before', { customer: 'cus_from_before', status: 'canceled' });
    const sessionId = await opened(auth, 'yearly');
    expect(stripeApi.sessions.get(sessionId)?.params.customer).toBe('cus_from_before');
    expect(trialDays(sessionId)).toBeUndefined();
    expect((await repo.account(id))?.stripeCustomerId).toBe('cus_from_before');
  });

  it('a checkout Stripe says was paid already, though its event has not come, is not opened again', async () => {
    const auth = await signUpAndLogIn(t.app, 'yves');
    const first = await opened(auth, 'monthly');
    // Paid at Stripe; the event is still on its way.
    stripeApi.complete(first);
    const res = await checkout(auth, 'monthly');
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      detail:
        'Your earlier card checkout was just paid: Premium starts as soon as the payment is confirmed. plan shows it.',
    });
  });
});

describe.each(dbTargets())('the sandbox gives the trial once too, on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(target);
  });
  afterAll(() => t.close());

  const checkout = (auth: Auth, planType: 'monthly' | 'yearly', provider: 'card' | 'crypto' = 'card') =>
    t.app.inject({
      method: 'POST',
      url: '/api/subscriptions/create-payment-session',
      headers: auth,
      payload: { planType, provider },
    });
  const formPost = (url: string) =>
    t.app.inject({ method: 'POST', url, headers: { origin: 'http://localhost:80', host: 'localhost:80' } });
  const me = async (auth: Auth) =>
    SubscriptionView.parse((await t.app.inject({ url: '/api/subscriptions/me', headers: auth })).json());

  it('three rounds of pay and cancel: only the first has the trial', async () => {
    const auth = await signUpAndLogIn(t.app, 'zoe');
    const ends: (string | null)[] = [];
    for (let round = 0; round < 3; round += 1) {
      const res = await checkout(auth, 'monthly');
      expect(res.statusCode, res.body).toBe(200);
      expect((await formPost(`${res.json<{ checkout_url: string }>().checkout_url}/pay`)).statusCode).toBe(
        303,
      );
      const view = await me(auth);
      expect(view).toMatchObject({ status: 'active', provider: 'card', trial_used: true });
      ends.push(view.trial_end);
      if (round > 0)
        expect(Math.round((Date.parse(view.current_period_end ?? '') - Date.now()) / DAY)).toBe(30);
      expect(
        (await t.app.inject({ method: 'POST', url: '/api/subscriptions/cancel', headers: auth })).statusCode,
      ).toBe(200);
    }
    expect(ends[0]).not.toBeNull();
    expect(ends.slice(1)).toEqual([null, null]);
  });

  it('30 card checkouts at once, all paid at once: one subscription, one trial', async () => {
    const auth = await signUpAndLogIn(t.app, 'abe');
    const answers = await Promise.all(Array.from({ length: 30 }, () => checkout(auth, 'monthly')));
    const urls = answers
      .filter((a) => a.statusCode === 200)
      .map((a) => a.json<{ checkout_url: string }>().checkout_url);
    expect(urls.length).toBeGreaterThan(0);
    const paid = await Promise.all(urls.map((url) => formPost(`${url}/pay`)));
    expect(paid.every((p) => p.statusCode === 303)).toBe(true);
    // Only the last one opened could still be paid: the others were closed when it was opened.
    const pages = await Promise.all(urls.map(async (url) => (await t.app.inject({ url })).body));
    expect(pages.filter((p) => p.includes('This checkout is completed.'))).toHaveLength(1);
    const view = await me(auth);
    expect(view.subscriptions).toHaveLength(1);
    expect(view.trial_end).not.toBeNull();
    const lines = ActivityList.parse(
      (await t.app.inject({ url: '/api/account/activity?limit=100', headers: auth })).json(),
    ).filter((e) => e.kind === 'plan_changed');
    expect(lines).toHaveLength(1);
  });

  it('a paid crypto period is kept: a card checkout on top of it is refused', async () => {
    const auth = await signUpAndLogIn(t.app, 'bea');
    const crypto = await checkout(auth, 'yearly', 'crypto');
    await formPost(`${crypto.json<{ checkout_url: string }>().checkout_url}/pay`);
    const paid = await me(auth);
    const card = await checkout(auth, 'monthly');
    expect(card.statusCode).toBe(409);
    expect(card.json<{ detail: string }>().detail).toMatch(
      /^Premium is active until \d{4}-\d\d-\d\d \(yearly, crypto\)\./,
    );
    expect(await me(auth)).toEqual(paid);
  });
});
