import { describe, expect, it } from 'vitest';
import {
  recordedAudit,
  recordedSources,
  recordedSubscription,
  recordedUsers,
} from '../../services/testing/billingAnswers';
import { billingSession, day, recorded } from '../testing/billingConsole';

/** The health of the server that recorded them: the sandbox stands in for both providers. */
const sandboxHealth = recordedSources().health;

/** The admin commands, on answers recorded from the real server (`npm run fixtures:billing`). */
describe('admin commands', () => {
  /** Ann (a user, her sandbox subscription cancelled) and root (the admin), as the server listed them. */
  const users = recordedUsers();
  const ann = users.find((u) => u.username === 'ann');

  it('refuses a user who is not an admin without asking the server', async () => {
    const s = billingSession('user');
    expect(await s.type('admin users')).toEqual(['error: Only administrators can do that.']);
    expect(s.server.requests).toEqual([]);
    expect(await s.type('admin')).toEqual(['error: Only administrators can do that.']);
    expect(s.stores.premium.adminOpen.value).toBe(false);
  });

  it('opens the panel, lists users, and grants Premium by username', async () => {
    const s = billingSession('admin');
    s.server.on('GET /admin/users', recorded('admin users'));
    s.server.on(`POST /admin/users/${ann?.id}/premium`, recorded('admin grant'));
    await s.type('admin');
    expect(s.stores.premium.adminOpen.value).toBe(true);
    const listed = await s.type('admin users');
    expect(listed).toEqual([
      `info: ann              ann@example.com            user  canceled, monthly by card, until ${day(ann?.subscription.current_period_end ?? null)} (trial until ${day(ann?.subscription.trial_end ?? null)})`,
      'info: root             root@example.com           admin inactive',
    ]);
    expect(await s.type('admin grant ann 90')).toEqual([
      `success: Premium granted to ann: active by grant, until ${day(recordedSubscription('admin grant').current_period_end)}.`,
    ]);
    expect(JSON.parse(s.server.requests.at(-1)?.body ?? '{}')).toEqual({ premium: true, days: 90 });
    expect(await s.type('admin grant nobody')).toEqual(["error: No user 'nobody'."]);
  });

  it('shows the server’s refusal (403) as it is', async () => {
    const s = billingSession('admin');
    s.server.on('GET /admin/users', recorded('admin refused'));
    expect(await s.type('admin users')).toEqual(['error: Not allowed.']);
  });

  it('prints the audit log with names, and the sources with their counts', async () => {
    const s = billingSession('admin');
    s.server.on('GET /admin/users', recorded('admin users'));
    s.server.on('GET /admin/audit', recorded('admin audit'));
    const granted = recordedAudit()[0]?.created_at ?? '';
    expect(await s.type('admin audit')).toEqual([
      `info: ${granted.slice(0, 10)} ${granted.slice(11, 19)}  root granted Premium to ann for 90 days`,
    ]);
    // The recorded server's health, with a Premium source that lags (the recording's replay never does).
    s.server.on('GET /admin/sources', () => ({
      status: 200,
      body: {
        ...recordedSources(),
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
        ...recordedSources(),
        health: {
          ...sandboxHealth,
          status: 'degraded',
          degraded: ['market feed stalled', 'exchange rate-limited for 4 s (429)'],
          db: 'postgres',
          bus: 'redis',
          market: 'binance',
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
