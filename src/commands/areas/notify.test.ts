import { describe, expect, it } from 'vitest';
import {
  DEFAULT_NOTIFICATION_SETTINGS,
  type NotificationSettings,
  type NotificationsState,
} from '../../contracts/notifications';
import type { PushPort } from '../../services/notifications';
import { createTestConsole } from '../testing/scripted';

const KEY = 'BPubKey';

function session(opts: { token?: string | null; telegram?: boolean; push?: PushPort } = {}) {
  const s = createTestConsole({ token: opts.token === undefined ? 'tok' : opts.token, push: opts.push });
  let settings: NotificationSettings = { ...DEFAULT_NOTIFICATION_SETTINGS };
  const subs = new Set<string>();
  const patches: unknown[] = [];
  const state = (): NotificationsState => ({
    settings,
    telegram: {
      configured: opts.telegram ?? false,
      bot: opts.telegram === true ? 'SignalBot' : null,
      linked: false,
      chat: null,
      linked_at: null,
    },
    push: { configured: true, public_key: KEY, subscriptions: subs.size },
  });
  s.server.on('GET /notifications', () => ({ status: 200, body: state() }));
  s.server.on('PATCH /notifications', (r) => {
    const patch = JSON.parse(r.body ?? '{}') as Partial<NotificationSettings>;
    patches.push(patch);
    settings = { ...settings, ...patch };
    return { status: 200, body: settings };
  });
  s.server.on('POST /notifications/push', (r) => {
    subs.add((JSON.parse(r.body ?? '{}') as { endpoint: string }).endpoint);
    return { status: 204 };
  });
  s.server.on('DELETE /notifications/push', (r) => {
    subs.delete((JSON.parse(r.body ?? '{}') as { endpoint: string }).endpoint);
    return { status: 204 };
  });
  s.server.on('POST /notifications/telegram/link', () => ({
    status: 200,
    body: {
      code: 'AB12CD',
      url: 'https://t.me/SignalBot?start=AB12CD',
      expires_at: '2026-11-27T10:00:00.000Z',
    },
  }));
  return { ...s, patches, subs };
}

/** A browser that can push: subscribes with the key it is given. */
function fakeBrowser(): PushPort & { keys: string[] } {
  let endpoint: string | null = null;
  const keys: string[] = [];
  return {
    keys,
    support: () => null,
    current: async () => endpoint,
    async subscribe(publicKey) {
      keys.push(publicKey);
      endpoint = 'https://push.example/sub/1';
      return { endpoint, keys: { p256dh: 'p', auth: 'a' } };
    },
    async unsubscribe() {
      const was = endpoint;
      endpoint = null;
      return was;
    },
  };
}

describe('notify commands', () => {
  it('shows the settings and where notes can go', async () => {
    const s = session();
    expect(await s.type('notify')).toEqual([
      'info: Alerts                 on at impact 80 and above',
      'info: Rule fills and exits   on',
      'info: Retractions            on',
      'info: Liquidation warnings   on',
      'info: Daily PnL (00:00 UTC)  off',
      'info: Live orders (Telegram) off',
      'info: Telegram               Telegram is not set up on this server.',
      'info: Web Push               0 browsers',
    ]);
  });

  it('changes one setting at a time on the server', async () => {
    const s = session();
    expect(await s.type('notify alerts off')).toEqual(['success: Alerts of high-impact signals off.']);
    expect(await s.type('notify threshold 85')).toEqual([
      'success: Signals at impact 85 and above are sent to you.',
    ]);
    expect(await s.type('notify pnl on')).toEqual(['success: The daily PnL at 00:00 UTC on.']);
    expect(s.patches).toEqual([{ alerts: false }, { alert_threshold: 85 }, { daily_pnl: true }]);
    expect((await s.type('notify threshold 83'))[0]).toContain('50 to 95 in steps of 5');
    expect(s.patches).toHaveLength(3);
  });

  it('says plainly when this browser (or the CLI) cannot take push', async () => {
    const s = session();
    expect(await s.type('notify push on')).toEqual([
      'error: This browser cannot receive push notifications (no service workers here).',
    ]);
    expect(s.subs.size).toBe(0);
  });

  it("subscribes this browser with the server's key, and unsubscribes", async () => {
    const browser = fakeBrowser();
    const s = session({ push: browser });
    expect(await s.type('notify push on')).toEqual([
      'success: Push to this browser is on: notes arrive when the tab is closed.',
    ]);
    expect(browser.keys).toEqual([KEY]);
    expect([...s.subs]).toEqual(['https://push.example/sub/1']);
    expect(s.stores.notifications.pushHere.value).toBe(true);
    expect((await s.type('notify')).at(-1)).toBe('info: Web Push               1 browser, this one included');
    expect(await s.type('notify push off')).toEqual(['success: Push to this browser is off.']);
    expect(s.subs.size).toBe(0);
    expect(s.stores.notifications.pushHere.value).toBe(false);
  });

  it('links Telegram with a one-time code, or says the server has no bot', async () => {
    expect(await session().type('notify telegram link')).toEqual([
      'error: Telegram is not set up on this server.',
    ]);
    const s = session({ telegram: true });
    const lines = await s.type('notify telegram link');
    // The same lines as `telegram link`.
    expect(lines).toEqual([
      'info: Open https://t.me/SignalBot?start=AB12CD in Telegram and press Start,',
      'info: or send the bot: /start AB12CD',
      'muted: The code works once, in a private chat with the bot, and expires at 2026-11-27 10:00:00 UTC; a newer code replaces it.',
    ]);
    expect(s.stores.notifications.link.value?.code).toBe('AB12CD');
  });

  it('needs a login', async () => {
    const guest = session({ token: null });
    expect(await guest.type('notify')).toEqual(['error: You must be logged in.']);
  });
});
