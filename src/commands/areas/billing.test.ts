import { describe, expect, it } from 'vitest';
import { AdminUser, type SubscriptionView } from '../../contracts/billing';
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

describe('admin commands', () => {
  const users = [
    AdminUser.parse({
      id: '11111111-0000-4000-8000-000000000000',
      email: 'root@example.com',
      username: 'root',
      role: 'admin',
      disabled: false,
      subscription: INACTIVE,
      created_at: '2026-11-01T00:00:00.000Z',
    }),
    AdminUser.parse({
      id: '22222222-0000-4000-8000-000000000000',
      email: 'bob@example.com',
      username: 'bob',
      role: 'user',
      disabled: false,
      subscription: INACTIVE,
      created_at: '2026-11-02T00:00:00.000Z',
    }),
  ];

  it('refuses a user who is not an admin without asking the server', async () => {
    const s = session('user');
    expect(await s.type('admin users')).toEqual(['error: Only administrators can do that.']);
    expect(s.server.requests).toEqual([]);
    expect(await s.type('admin')).toEqual(['error: Only administrators can do that.']);
    expect(s.stores.premium.adminOpen.value).toBe(false);
  });

  it('opens the panel, lists users, and grants Premium by username', async () => {
    const s = session('admin');
    s.server.on('GET /admin/users', () => ({ status: 200, body: users }));
    s.server.on(`POST /admin/users/${users[1]?.id}/premium`, () => ({
      status: 200,
      body: { ...ACTIVE, provider: 'admin', trial_end: null, plan: null },
    }));
    await s.type('admin');
    expect(s.stores.premium.adminOpen.value).toBe(true);
    const listed = await s.type('admin users');
    expect(listed[1]).toMatch(/^info: bob\s+bob@example.com\s+user\s+inactive$/);
    expect(await s.type('admin grant bob 90')).toEqual([
      'success: Premium granted to bob: active, until 30 Nov 2026.',
    ]);
    expect(JSON.parse(s.server.requests.at(-1)?.body ?? '{}')).toEqual({ premium: true, days: 90 });
    expect(await s.type('admin grant nobody')).toEqual(["error: No user 'nobody'."]);
  });

  it('shows the server’s refusal (403) as it is', async () => {
    const s = session('admin');
    s.server.on('GET /admin/users', () => ({ status: 403, body: { detail: 'Forbidden.' } }));
    expect(await s.type('admin users')).toEqual(['error: Forbidden.']);
  });

  it('prints the audit log with names, and the sources with their counts', async () => {
    const s = session('admin');
    s.server.on('GET /admin/users', () => ({ status: 200, body: users }));
    s.server.on('GET /admin/audit', () => ({
      status: 200,
      body: [
        {
          id: '1',
          actor_id: users[0]?.id,
          action: 'premium.grant',
          target_user_id: users[1]?.id,
          detail: { days: 10 },
          created_at: '2026-11-23T09:00:00.000Z',
        },
      ],
    }));
    expect(await s.type('admin audit')).toEqual([
      'info: 2026-11-23 09:00:00  root granted Premium to bob for 10 days',
    ]);
    s.server.on('GET /admin/sources', () => ({
      status: 200,
      body: {
        health: {
          status: 'ok',
          degraded: [],
          db: 'pglite',
          dbOk: true,
          bus: 'memory',
          busOk: true,
          market: 'sim',
          news: ['replay', 'webhook'],
          exchange: 'paper',
          analyzer: 'local',
          payments: [],
          mail: 'outbox',
          standins: [],
          version: '1',
          uptimeSeconds: 5,
        },
        ingestion: [{ source: 'webhook', total: 12, last_24h: 3, premium: true }],
        receipts: {
          threshold_ms: 300_000,
          sources: [
            {
              name: 'webhook',
              state: 'live',
              lag_p50_ms: 800,
              lag_p95_ms: 420_000,
              items_per_hour: 3,
              last_item_at: '2026-03-05T14:00:00.000Z',
              last_item_age_ms: 120_000,
              lagging: true,
            },
          ],
        },
      },
    }));
    const out = await s.type('admin sources');
    expect(out[0]).toBe('info: Server ok; database pglite ok; bus memory ok; analyzer local');
    expect(out[2]).toMatch(
      /^muted:\s+webhook\s+12 signals, 3 in 24 h\s+\(Premium only\); lag 800 ms \/ 7 min \(degraded\), 3\/h, last 2 min ago$/,
    );
    expect(out.some((line) => line.includes('Degraded'))).toBe(false);

    s.server.on('GET /admin/sources', () => ({
      status: 200,
      body: {
        health: {
          status: 'degraded',
          degraded: ['market feed stalled', 'exchange rate-limited for 4 s (429)'],
          db: 'postgres',
          dbOk: true,
          bus: 'redis',
          busOk: true,
          market: 'binance',
          news: ['webhook'],
          exchange: 'paper',
          analyzer: 'local',
          payments: [],
          mail: 'outbox',
          standins: [],
          version: '1',
          uptimeSeconds: 5,
        },
        ingestion: [],
      },
    }));
    const degraded = await s.type('admin sources');
    expect(degraded.slice(0, 2)).toEqual([
      'info: Server degraded; database postgres ok; bus redis ok; analyzer local',
      'error: Degraded: market feed stalled; exchange rate-limited for 4 s (429)',
    ]);
  });
});
