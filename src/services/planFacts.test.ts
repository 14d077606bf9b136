import { describe, expect, it } from 'vitest';
import type { SubscriptionEntry, SubscriptionView } from '../contracts/billing';
import {
  cancelAction,
  cancelAdvice,
  cardGatewayOf,
  planFacts,
  switchQuestion,
  switchTarget,
  trialStarted,
} from './planFacts';

const NOW = Date.UTC(2026, 10, 26, 12);
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();
/** The account's answer; `subscriptions` is its one subscription unless given. */
const view = (over: Partial<SubscriptionView>): SubscriptionView => {
  const s = {
    status: 'active' as const,
    current_period_end: iso(NOW + 30 * DAY),
    plan: 'monthly' as const,
    provider: 'card' as const,
    trial_end: null,
    trial_used: false,
    ...over,
  };
  const one: SubscriptionEntry[] =
    s.provider === null || s.status === 'inactive'
      ? []
      : [
          {
            provider: s.provider,
            status: s.status,
            plan: s.plan,
            current_period_end: s.current_period_end,
            trial_end: s.trial_end,
            cancel_at_period_end: false,
          },
        ];
  return { subscriptions: one, ...s };
};

describe('the Plan tab', () => {
  it('reads which card gateway the server has', () => {
    expect(cardGatewayOf(['stripe', 'btcpay'])).toBe('stripe');
    expect(cardGatewayOf(['sandbox-card'])).toBe('sandbox');
    expect(cardGatewayOf([])).toBeNull();
    expect(cardGatewayOf(null)).toBeNull();
  });

  it('says a Stripe card trial is $0 today with the first charge date, and that it renews', () => {
    const s = view({ trial_end: iso(NOW + 7 * DAY), current_period_end: iso(NOW + 7 * DAY) });
    expect(planFacts(s, NOW, 'stripe')).toEqual([
      { label: 'Plan', value: 'Premium monthly ($179 per month)' },
      { label: 'Status', value: 'Active' },
      { label: 'Paid by', value: 'card (Stripe)' },
      {
        label: 'Free trial',
        value: 'until 3 Dec 2026: $0 today; the first charge ($179 per month) is due then',
      },
      { label: 'Renews on', value: '3 Dec 2026' },
    ]);
    expect(cancelAdvice(s, 'stripe')).toBe(
      'Your card subscription with Stripe renews on 3 Dec 2026. plan cancel (or Cancel renewal here) cancels it at the end of the period: Premium stays until then.',
    );
    expect(cancelAction(s, 'stripe')).toBe('schedule');
  });

  it('says a cancelled card subscription ends instead of renewing, with nothing left to cancel or switch', () => {
    const base = view({ current_period_end: iso(NOW + 7 * DAY) });
    const s = {
      ...base,
      subscriptions: base.subscriptions.map((e) => ({ ...e, cancel_at_period_end: true })),
    };
    expect(planFacts(s, NOW, 'stripe').slice(3)).toEqual([
      { label: 'Renewal', value: 'cancelled: nothing more is charged' },
      { label: 'Ends on', value: '3 Dec 2026' },
    ]);
    expect(cancelAction(s, 'stripe')).toBeNull();
    expect(cancelAdvice(s, 'stripe')).toBe(
      'Your card subscription is cancelled: it ends on 3 Dec 2026 and nothing more is charged.',
    );
    expect(switchTarget(s)).toBeNull();
    expect(switchTarget(base)).toBe('yearly');
  });

  it('shows a card subscription and a crypto period side by side until one ends', () => {
    const card: SubscriptionEntry = {
      provider: 'card',
      status: 'active',
      plan: 'monthly',
      current_period_end: iso(NOW + 7 * DAY),
      trial_end: iso(NOW + 7 * DAY),
      cancel_at_period_end: false,
    };
    const crypto: SubscriptionEntry = {
      provider: 'crypto',
      status: 'active',
      plan: 'yearly',
      current_period_end: iso(NOW + 365 * DAY),
      trial_end: null,
      cancel_at_period_end: false,
    };
    const s = view({
      provider: 'crypto',
      plan: 'yearly',
      current_period_end: crypto.current_period_end,
      subscriptions: [crypto, card],
    });
    expect(planFacts(s, NOW, 'stripe')).toEqual([
      { label: 'Plan', value: 'Premium, paid 2 ways' },
      { label: 'Status', value: 'Active' },
      { label: 'By crypto', value: 'yearly ($1790 per year), ends on 26 Nov 2027' },
      {
        label: 'By card',
        value: 'monthly ($179 per month), free trial until 3 Dec 2026, renews on 3 Dec 2026',
      },
      { label: 'Premium until', value: 'at least 26 Nov 2027' },
    ]);
    // Cancelling reaches the card subscription; the crypto period runs out by itself.
    expect(cancelAction(s, 'stripe')).toBe('schedule');
    expect(cancelAdvice(s, 'stripe')).toBe(
      'Your card subscription with Stripe renews on 3 Dec 2026. plan cancel (or Cancel renewal here) cancels it at the end of the period: Premium stays until then. Your crypto period runs out by itself on 26 Nov 2027.',
    );
    expect(switchTarget(s)).toBe('yearly');
    expect(switchQuestion(s, 'yearly', NOW, 'stripe')).toEqual({
      question: 'Switch your card subscription to yearly ($1790 per year)?',
      details: ['The free trial still ends on 3 Dec 2026; the first charge is then $1790.'],
    });
  });

  it('offers to cancel a card subscription on hold now: not Premium, but Stripe still retries its charge', () => {
    const held = view({ status: 'past_due' });
    expect(cancelAction(held, 'stripe')).toBe('stop');
    expect(cancelAdvice(held, 'stripe')).toBe(
      'Your card subscription is on hold: a payment failed, and Stripe retries it. plan cancel cancels it now: nothing more is charged.',
    );
    expect(cancelAction(view({ status: 'canceled' }), 'stripe')).toBeNull();
  });

  it('tells an account that had its free trial that it was used, instead of offering it', () => {
    const none = view({ status: 'canceled', plan: 'monthly', provider: 'card', trial_used: true });
    expect(planFacts(none, NOW, 'stripe').at(-1)).toEqual({
      label: 'Free trial',
      value: 'used (one per account)',
    });
    const fresh = view({ status: 'inactive', current_period_end: null, plan: null, provider: null });
    expect(planFacts(fresh, NOW, 'stripe').some((f) => f.label === 'Free trial')).toBe(false);
  });

  it('never speaks of a trial where there is none, and says a crypto period or a grant just ends', () => {
    const crypto = view({ provider: 'crypto', plan: 'yearly', current_period_end: iso(NOW + 365 * DAY) });
    const facts = planFacts(crypto, NOW, 'stripe');
    expect(facts.map((f) => f.label)).toEqual(['Plan', 'Status', 'Paid by', 'Ends on']);
    expect(facts[0]?.value).toBe('Premium yearly ($1790 per year)');
    expect(cancelAdvice(crypto, 'stripe')).toBe(
      'A crypto payment covers one period and does not renew: Premium ends on 26 Nov 2027, with nothing more to pay.',
    );
    const grant = view({ provider: 'admin', plan: null });
    expect(planFacts(grant, NOW, null).map((f) => f.value)).toEqual([
      'Premium',
      'Active',
      'granted by an administrator',
      '26 Dec 2026',
    ]);
    expect(cancelAdvice(grant, null)).toMatch(
      /^Premium was granted by an administrator and ends on 26 Dec 2026/,
    );
  });

  it('in the sandbox says nothing is charged and nothing renews', () => {
    const s = view({ trial_end: iso(NOW + 7 * DAY), current_period_end: iso(NOW + 7 * DAY) });
    const facts = planFacts(s, NOW, 'sandbox');
    expect(facts.find((f) => f.label === 'Free trial')?.value).toBe(
      'until 3 Dec 2026: $0 today; the sandbox charges nothing after it',
    );
    expect(facts.at(-1)).toEqual({ label: 'Ends on', value: '3 Dec 2026' });
    expect(cancelAdvice(s, 'sandbox')).toBe(
      "This server's payments are the offline sandbox: nothing is charged and nothing renews; Premium ends on 3 Dec 2026, or now with plan cancel.",
    );
  });

  it('shows Free and nothing to cancel without a subscription', () => {
    const none = view({ status: 'inactive', current_period_end: null, plan: null, provider: null });
    expect(planFacts(none, NOW, 'stripe')).toEqual([
      { label: 'Plan', value: 'Free' },
      { label: 'Status', value: 'No subscription' },
    ]);
    expect(cancelAdvice(none, 'stripe')).toBe('You have no Premium subscription to cancel.');
  });
});

describe('the payment success page', () => {
  it('says a card trial started, $0 today, and when the first charge is; nothing for crypto', () => {
    const s = view({ trial_end: iso(NOW + 7 * DAY) });
    expect(trialStarted(s, NOW, 'stripe')).toBe(
      'Your 7-day free trial has started: $0 today; the first charge is $179 on 3 Dec 2026.',
    );
    expect(trialStarted(s, NOW, 'sandbox')).toBe(
      'Your 7-day free trial has started: $0 today; this offline sandbox charges nothing afterwards.',
    );
    expect(trialStarted(view({ provider: 'crypto' }), NOW, 'stripe')).toBeNull();
    expect(trialStarted(s, NOW + 8 * DAY, 'stripe')).toBeNull();
  });
});
