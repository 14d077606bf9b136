import { describe, expect, it } from 'vitest';
import type { SubscriptionView } from '../../contracts/billing';
import type { Health } from '../../contracts/health';
import { createTestConsole } from '../testing/scripted';

const INACTIVE: SubscriptionView = {
  status: 'inactive',
  current_period_end: null,
  plan: null,
  provider: null,
  trial_end: null,
};
const ACTIVE: SubscriptionView = {
  status: 'active',
  current_period_end: '2026-11-30T10:00:00.000Z',
  plan: 'monthly',
  provider: 'card',
  trial_end: '2026-11-30T10:00:00.000Z',
};

const sandboxHealth: Health = {
  status: 'ok',
  degraded: [],
  db: 'pglite',
  dbOk: true,
  bus: 'memory',
  busOk: true,
  market: 'sim',
  news: ['replay'],
  exchange: 'paper',
  analyzer: 'local',
  payments: ['sandbox-card', 'sandbox-crypto'],
  mail: 'outbox',
  standins: [],
  version: '0.1.0',
  uptimeSeconds: 3,
  role: 'all',
  leases: [],
};

function session(role: 'user' | 'admin' = 'user') {
  const s = createTestConsole({ token: 'tok' });
  s.stores.session.setUser({ username: 'ann', role, subscriptionStatus: 'inactive', id: 'u-ann' });
  return s;
}

describe('plan and upgrade', () => {
  it('plan prints the status, the period end and, on the free plan, the prices', async () => {
    const s = session();
    s.server.on('GET /subscriptions/me', () => ({ status: 200, body: INACTIVE }));
    expect(await s.type('plan')).toEqual([
      'info: Plan:       Free',
      'info: Status:     No subscription',
      'muted: Free: 3 active auto-trading rules and the default news sources.',
      'info: Premium: real-time ai signals, unlimited auto-trading rules, all news sources, priority support.',
      'info:   monthly  $179 per month',
      'info:   yearly   $1790 per year  SAVE 20%',
      'muted: By card: 7-day free trial, then renews. By crypto: the period paid at once, no trial. upgrade monthly|yearly [card|crypto]',
    ]);
  });

  it('plan on Premium shows the end of the period and updates the header’s status', async () => {
    const s = session();
    s.server.on('GET /subscriptions/me', () => ({ status: 200, body: ACTIVE }));
    const out = await s.type('plan');
    expect(out.slice(0, 3)).toEqual([
      'info: Plan:       Premium monthly ($179 per month)',
      'info: Status:     Active',
      'info: Paid by:    card (Stripe)',
    ]);
    expect(out).toContain('info: Renews on:  30 Nov 2026');
    expect(out.at(-1)).toBe(
      "muted: Your card subscription with Stripe renews on 30 Nov 2026. Cancel it in Stripe's customer portal: plan cancel, or Cancel in Stripe on the Plan tab.",
    );
    expect(s.stores.session.user.value?.subscriptionStatus).toBe('active');
  });

  it('plan cancel says what this server can cancel, sending nothing but the read', async () => {
    const s = session();
    s.server.on('GET /subscriptions/me', () => ({ status: 200, body: { ...ACTIVE, provider: 'crypto' } }));
    expect(await s.type('plan cancel')).toEqual([
      'info: A crypto payment covers one period and does not renew: Premium ends on 30 Nov 2026, with nothing more to pay.',
    ]);
    s.server.on('GET /subscriptions/me', () => ({ status: 200, body: INACTIVE }));
    expect(await s.type('plan cancel')).toEqual(['info: You have no Premium subscription to cancel.']);
    expect(s.server.requests.every((r) => r.method === 'GET')).toBe(true);
  });

  it('plan cancel with Stripe opens its customer portal for the subscription', async () => {
    const s = session();
    s.server.on('GET /subscriptions/me', () => ({ status: 200, body: ACTIVE }));
    const portal = 'https://billing.stripe.com/p/session/bps_1';
    s.server.on('POST /subscriptions/cancel', () => ({
      status: 200,
      body: { action: 'portal', url: portal, message: "Cancel in Stripe's customer portal." },
    }));
    // The CLI (nobody to send away): the address is the answer.
    expect(await s.type('plan cancel')).toEqual([
      "success: Cancel in Stripe's customer portal.",
      `info: ${portal}`,
    ]);
    const went: string[] = [];
    s.stores.premium.onRedirect((url) => went.push(url));
    expect((await s.type('plan cancel'))[0]).toBe("success: Opening Stripe's customer portal…");
    expect(went).toEqual([portal]);
  });

  it('plan cancel in the sandbox asks, then ends Premium now', async () => {
    const s = session();
    s.stores.connection.markAnswered(sandboxHealth);
    s.server.on('GET /subscriptions/me', () => ({ status: 200, body: ACTIVE }));
    expect(await s.answering('plan cancel', 'n')).toEqual(['muted: Nothing was cancelled.']);
    expect(s.asked).toEqual(['End Premium now? The sandbox charged nothing and nothing renews. [y/N] ']);
    expect(s.server.count('POST /subscriptions/cancel')).toBe(0);
    let ended = false;
    s.server.on('POST /subscriptions/cancel', () => {
      ended = true;
      return {
        status: 200,
        body: { action: 'ended', url: null, message: 'Premium cancelled: it ended now.' },
      };
    });
    s.server.on('GET /subscriptions/me', () => ({
      status: 200,
      body: ended ? { ...ACTIVE, status: 'canceled' } : ACTIVE,
    }));
    expect(await s.answering('plan cancel', 'y')).toEqual(['success: Premium cancelled: it ended now.']);
    expect(s.stores.session.user.value?.subscriptionStatus).toBe('canceled');
  });

  it('upgrade on Premium says so instead of offering to pay again', async () => {
    const s = session();
    s.stores.session.setUser({ username: 'ann', role: 'user', subscriptionStatus: 'active', id: 'u-ann' });
    s.server.on('GET /subscriptions/me', () => ({ status: 200, body: ACTIVE }));
    expect(await s.type('upgrade yearly')).toEqual([
      'success: You have Premium already (active, monthly by card, until 30 Nov 2026 (trial until 30 Nov 2026)). plan shows it.',
    ]);
    expect(s.server.count('POST /subscriptions/create-payment-session')).toBe(0);
  });

  it('plan says spec §8’s message when the status cannot be read', async () => {
    const s = session();
    s.server.on('GET /subscriptions/me', () => ({ status: 500, body: { detail: 'boom' } }));
    expect(await s.type('plan')).toEqual([
      'error: Could not verify subscription status. Please check your account page or contact support.',
    ]);
  });

  it('upgrade yearly crypto asks for a session and sends the browser to its checkout_url', async () => {
    const s = session();
    s.server.on('POST /subscriptions/create-payment-session', () => ({
      status: 200,
      body: { checkout_url: '/api/subscriptions/sandbox/abc' },
    }));
    const went: string[] = [];
    s.stores.premium.onRedirect((url) => went.push(url));
    const out = await s.run('upgrade yearly crypto');
    expect(out.exit).toBe(0);
    expect(JSON.parse(s.server.requests.at(-1)?.body ?? '{}')).toEqual({
      planType: 'yearly',
      provider: 'crypto',
    });
    expect(went).toEqual(['/api/subscriptions/sandbox/abc']);
    expect(out.data).toEqual({ checkout_url: '/api/subscriptions/sandbox/abc' });
  });

  it('upgrade with no listener (the CLI) prints where to pay; card is the default provider', async () => {
    const s = session();
    s.server.on('POST /subscriptions/create-payment-session', () => ({
      status: 200,
      body: { checkout_url: 'https://checkout.example/cs_1' },
    }));
    const out = await s.type('upgrade monthly');
    expect(out).toEqual(['success: Checkout ready. Pay at:', 'info: https://checkout.example/cs_1']);
    expect(JSON.parse(s.server.requests.at(-1)?.body ?? '{}')).toEqual({
      planType: 'monthly',
      provider: 'card',
    });
  });

  it('upgrade shows spec §8’s message when the session cannot be made, and opens the modal alone', async () => {
    const s = session();
    s.server.on('POST /subscriptions/create-payment-session', () => ({ status: 502, body: {} }));
    expect(await s.type('upgrade monthly')).toEqual([
      'error: An unexpected error occurred. Please try again.',
    ]);
    expect(s.stores.premium.upgradeOpen.value).toBe(false);
    await s.type('upgrade');
    expect(s.stores.premium.upgradeOpen.value).toBe(true);
    const bad = await s.run('upgrade weekly');
    expect(bad.exit).toBe(2);
  });

  it('asks a guest to log in', async () => {
    const s = createTestConsole();
    expect(await s.type('plan')).toEqual(['error: You must be logged in.']);
    expect(s.stores.ui.authModal.value).toBe('login');
  });
});
