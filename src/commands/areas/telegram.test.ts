import { describe, expect, it } from 'vitest';
import { DEFAULT_NOTIFICATION_SETTINGS } from '../../contracts/notifications';
import { createTestConsole } from '../testing/scripted';

const NOT_LINKED = { configured: true, bot: 'signal_bot', linked: false, chat: null, linked_at: null };

function session(token: string | null = 'tok') {
  const s = createTestConsole({ token });
  let telegram: Record<string, unknown> = NOT_LINKED;
  s.server.on('GET /notifications', () => ({
    status: 200,
    body: {
      settings: DEFAULT_NOTIFICATION_SETTINGS,
      telegram,
      push: { configured: false, public_key: null, subscriptions: 0 },
    },
  }));
  s.server.on('POST /notifications/telegram/link', () => ({
    status: 200,
    body: {
      code: 'Zq3_x-9aBcDeFgHiJkLmNoPq',
      url: 'https://t.me/signal_bot?start=Zq3_x-9aBcDeFgHiJkLmNoPq',
      expires_at: '2026-11-27T07:52:10.000Z',
    },
  }));
  s.server.on('DELETE /notifications/telegram/link', () => {
    telegram = NOT_LINKED;
    return { status: 204 };
  });
  return {
    ...s,
    setTelegram(next: Record<string, unknown>) {
      telegram = next;
    },
  };
}

describe('telegram commands', () => {
  it('telegram link prints the link, the code and the expiry as the server gave them', async () => {
    const s = session();
    expect(await s.type('telegram link')).toEqual([
      'info: Open https://t.me/signal_bot?start=Zq3_x-9aBcDeFgHiJkLmNoPq in Telegram and press Start,',
      'info: or send the bot: /start Zq3_x-9aBcDeFgHiJkLmNoPq',
      'muted: The code works once, in a private chat with the bot, and expires at 2026-11-27 07:52:10 UTC; a newer code replaces it.',
    ]);
  });

  it('telegram shows the status; telegram unlink unlinks', async () => {
    const s = session();
    expect(await s.type('telegram')).toEqual([
      'info: Not linked to @signal_bot. Link a chat with: telegram link',
    ]);
    s.setTelegram({
      configured: true,
      bot: 'signal_bot',
      linked: true,
      chat: '@ann',
      linked_at: '2026-11-27T07:45:00.000Z',
    });
    expect(await s.type('telegram')).toEqual([
      'info: Linked to @signal_bot in @ann since 2026-11-27 07:45:00 UTC.',
    ]);
    expect(await s.type('telegram unlink')).toEqual([
      'success: Telegram unlinked: nothing more is sent to that chat.',
    ]);
    // The notifications pane reads the same store: it shows the chat unlinked too.
    expect(s.stores.notifications.state.value?.telegram.linked).toBe(false);
    expect(await s.type('telegram')).toEqual([
      'info: Not linked to @signal_bot. Link a chat with: telegram link',
    ]);
  });

  it('says what the server says when the bot is not set up, and needs a login', async () => {
    const s = session();
    s.setTelegram({ configured: false, bot: null, linked: false, chat: null, linked_at: null });
    expect(await s.type('telegram')).toEqual([
      'muted: Telegram is not set up on this server (it needs TELEGRAM_BOT_TOKEN).',
    ]);
    s.server.on('POST /notifications/telegram/link', () => ({
      status: 503,
      body: {
        detail:
          'Telegram is not set up on this server: it needs TELEGRAM_BOT_TOKEN (a bot made with @BotFather).',
      },
    }));
    expect(await s.type('telegram link')).toEqual([
      'error: Telegram is not set up on this server: it needs TELEGRAM_BOT_TOKEN (a bot made with @BotFather).',
    ]);
    const guest = session(null);
    for (const line of ['telegram', 'telegram link', 'telegram unlink']) {
      expect(await guest.type(line)).toEqual(['error: You must be logged in.']);
    }
    expect(guest.server.requests).toEqual([]);
  });
});
