import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOW_TO_LINK } from '../../server/modules/notifications/telegram/format';
import { NOT_CONFIGURED } from '../../server/modules/notifications/telegram/telegram.routes';
import type { TelegramPart } from '../../server/modules/notifications/telegram';
import type { TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { startTelegramBotDouble, type TelegramBotDouble } from '../helpers/telegram-double';
import { startBotApp, TOKEN, until, userOf } from './telegram-bot.support';

const HOOK = '/api/notifications/telegram/webhook';
const PUBLIC_URL = 'https://console.example.com/api/notifications/telegram/webhook';

describe.each(dbTargets())('telegram bot by webhook on %s', (name) => {
  const target = useDatabase(name);
  let tg: TelegramBotDouble;
  let t: TestApp;

  beforeAll(async () => {
    tg = await startTelegramBotDouble(TOKEN);
    ({ t } = await startBotApp(target, { TELEGRAM_API_URL: tg.url, TELEGRAM_WEBHOOK_URL: PUBLIC_URL }));
  });
  afterAll(async () => {
    await t?.close();
    await tg?.close();
  });

  const update = (chat: number, text: string) => ({
    update_id: 90_000 + chat,
    message: { message_id: 1, date: 1, chat: { id: chat, type: 'private' }, text },
  });

  it('sets the webhook with a secret and never polls', async () => {
    await until(() => tg.webhook !== null, 5000, 'setWebhook');
    expect(tg.webhook?.url).toBe(PUBLIC_URL);
    expect(tg.webhook?.secret_token).toMatch(/^[A-Za-z0-9_-]{32,256}$/);
    expect(tg.webhook?.secret_token).not.toContain(TOKEN.split(':')[1]!);
    expect(tg.callsOf('getUpdates')).toEqual([]);
  });

  it('takes an update only with the secret Telegram sends back', async () => {
    const secret = tg.webhook?.secret_token ?? '';
    const none = await t.app.inject({ method: 'POST', url: HOOK, payload: update(9001, 'hi') });
    expect(none.statusCode).toBe(401);
    const wrong = await t.app.inject({
      method: 'POST',
      url: HOOK,
      headers: { 'x-telegram-bot-api-secret-token': `${secret.slice(0, -1)}x` },
      payload: update(9002, 'hi'),
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ detail: 'Not authenticated' });
    const right = await t.app.inject({
      method: 'POST',
      url: HOOK,
      headers: { 'x-telegram-bot-api-secret-token': secret },
      payload: update(9003, 'hi'),
    });
    expect(right.statusCode).toBe(200);
    await until(() => tg.sentTo(9003).length === 1, 5000, 'the answer');
    expect(tg.sentTo(9003)[0]?.text).toBe(HOW_TO_LINK);
    expect(tg.sentTo(9001)).toEqual([]);
    expect(tg.sentTo(9002)).toEqual([]);
  });

  it('answers 200 to an update it cannot read (Telegram sends again what it got no 2xx for), and acts on none', async () => {
    const secret = { 'x-telegram-bot-api-secret-token': tg.webhook?.secret_token ?? '' };
    for (const payload of [
      { update_id: 91_001, message: 'not a message' },
      { update_id: 91_002, message: { message_id: 1, date: 1, chat: { id: 'abc', type: 'private' } } },
      { update_id: 91_003, callback_query: { id: 1, from: null } },
      { message: { message_id: 1, date: 1, chat: { id: 9004, type: 'private' }, text: 'no update_id' } },
      [1, 2, 3],
    ]) {
      const res = await t.app.inject({ method: 'POST', url: HOOK, headers: secret, payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(200);
      expect(res.json()).toEqual({ ok: true });
    }
    const after = await t.app.inject({
      method: 'POST',
      url: HOOK,
      headers: secret,
      payload: update(9005, 'hi'),
    });
    expect(after.statusCode).toBe(200);
    await until(() => tg.sentTo(9005).length === 1, 5000, 'the answer to a good update');
    expect(tg.sentTo(9004)).toEqual([]);
  });
});

describe.each(dbTargets())('telegram bot without a token on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let part: () => TelegramPart;

  beforeAll(async () => {
    ({ t, part } = await startBotApp(target, { TELEGRAM_BOT_TOKEN: '' }));
  });
  afterAll(() => t?.close());

  it('says it is not configured, links nothing, sends nothing and has no webhook', async () => {
    const gil = await userOf(t.app, 'gil');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/notifications/telegram/link',
      headers: gil.headers,
    });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ detail: NOT_CONFIGURED });
    expect(await part().state(gil.id)).toEqual({
      configured: false,
      bot: null,
      linked: false,
      chat: null,
      linked_at: null,
    });
    expect(await part().channel.reaches(gil.id)).toBe(false);
    await part().channel.deliver({ kind: 'alert', userId: gil.id, title: 'x', body: '' });
    const unlink = await t.app.inject({
      method: 'DELETE',
      url: '/api/notifications/telegram/link',
      headers: gil.headers,
    });
    expect(unlink.statusCode).toBe(204);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/notifications/telegram/webhook',
          payload: { update_id: 1 },
        })
      ).statusCode,
    ).toBe(404);
    expect((await t.app.inject({ method: 'POST', url: '/api/notifications/telegram/link' })).statusCode).toBe(
      401,
    );
  });
});
