import { describe, expect, it } from 'vitest';
import { AdminUser, type SubscriptionView } from '../../contracts/billing';
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

function session(role: 'user' | 'admin' = 'user') {
  const s = createTestConsole({ token: 'tok' });
  s.stores.session.setUser({ username: 'ann', role, subscriptionStatus: 'inactive', id: 'u-ann' });
  return s;
}

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
