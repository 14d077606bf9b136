import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../server/db/client';
import { users } from '../../server/db/schema/users';
import { telegramOutbox } from '../../server/db/schema/notifications';
import { BotApi, BotApiError, BotApiUnreachable } from '../../server/modules/notifications/telegram/bot-api';
import { Outbox } from '../../server/modules/notifications/telegram/outbox';
import { LOW_QUEUE_MAX, TelegramRepo } from '../../server/modules/notifications/telegram/telegram.repo';
import { createFakeClock, type FakeClock } from '../../src/services/testing/fakeClock';
import { dbTargets, useDatabase } from '../helpers/db';
import { startTelegramBotDouble, type TelegramBotDouble } from '../helpers/telegram-double';

const TOKEN = '4242:outbox-token';

describe.each(dbTargets())('telegram outbox on %s', (name) => {
  const target = useDatabase(name);
  let database: Database;
  let repo: TelegramRepo;
  let tg: TelegramBotDouble;
  let clock: FakeClock;
  let outbox: Outbox;
  const logs: string[] = [];

  beforeAll(async () => {
    database = await target.open();
    repo = new TelegramRepo(database.db);
    tg = await startTelegramBotDouble(TOKEN);
  });
  afterAll(async () => {
    await tg.close();
    await database.close();
    await target.cleanup();
  });
  beforeEach(async () => {
    await database.db.delete(telegramOutbox);
    clock = createFakeClock(Date.parse('2026-01-01T00:00:00Z'));
    const log = {
      info: (o: object, m: string) => logs.push(`${m} ${JSON.stringify(o)}`),
      warn: (o: object, m: string) => logs.push(`${m} ${JSON.stringify(o)}`),
    };
    outbox = new Outbox({
      repo,
      api: new BotApi({ baseUrl: tg.url, token: TOKEN, timeoutMs: 2000 }),
      clock,
      log,
      onBlocked: async (chatId) => void (await repo.unlinkChat(chatId)),
    });
  });

  /** Moves the fake clock in steps, a pass of the outbox after each. */
  const run = async (ms: number, step = 100) => {
    for (let t = 0; t < ms; t += step) {
      clock.advance(step);
      await outbox.kick();
    }
  };
  const send = (chatId: number, text: string) =>
    outbox.enqueue({ chatId, method: 'sendMessage', params: { text } });
  const rows = () => database.db.select().from(telegramOutbox).orderBy(telegramOutbox.id);

  it('sends one message a second to a chat, in order, and chats side by side', async () => {
    for (const text of ['a1', 'a2', 'a3']) await send(101, text);
    for (const text of ['b1', 'b2']) await send(102, text);
    await outbox.kick();
    expect(tg.sentTo(101).map((m) => m.text)).toEqual(['a1']);
    expect(tg.sentTo(102).map((m) => m.text)).toEqual(['b1']);
    await run(900);
    expect(tg.sentTo(101)).toHaveLength(1);
    await run(200);
    expect(tg.sentTo(101).map((m) => m.text)).toEqual(['a1', 'a2']);
    expect(tg.sentTo(102).map((m) => m.text)).toEqual(['b1', 'b2']);
    await run(1000);
    expect(tg.sentTo(101).map((m) => m.text)).toEqual(['a1', 'a2', 'a3']);
    expect((await rows()).every((r) => r.state === 'sent' && r.messageId !== null)).toBe(true);
  });

  it('sends at most 30 messages a second over all chats', async () => {
    for (let chat = 200; chat < 240; chat += 1) await send(chat, `hello ${chat}`);
    const before = tg.messages.length;
    await outbox.kick();
    expect(tg.messages.length - before).toBe(30);
    await run(1000);
    expect(tg.messages.length - before).toBe(40);
  });

  it('sends the linked chats’ messages before lines to strangers, at most 10 of those a second, and queues at most 100', async () => {
    const low = (chatId: number) =>
      outbox.enqueueLow({ chatId, method: 'sendMessage', params: { text: `how to link ${chatId}` } });
    const taken: boolean[] = [];
    for (let chat = 1000; chat < 1150; chat += 1) taken.push(await low(chat));
    expect(taken.filter(Boolean)).toHaveLength(LOW_QUEUE_MAX);
    // One line waiting for a chat is enough: a second is not queued.
    expect(await low(1000)).toBe(false);
    for (let chat = 700; chat < 735; chat += 1) await send(chat, `proposal ${chat}`);

    const before = tg.messages.length;
    await outbox.kick();
    const first = tg.messages.slice(before);
    expect(first).toHaveLength(30);
    expect(first.every((m) => m.text.startsWith('proposal'))).toBe(true);
    await run(1000, 1000);
    const second = tg.messages.slice(before + 30);
    expect(second.filter((m) => m.text.startsWith('proposal'))).toHaveLength(5);
    expect(second.filter((m) => m.text.startsWith('how to link'))).toHaveLength(10);
    await run(3000, 1000);
    expect(tg.messages.slice(before).filter((m) => m.text.startsWith('how to link'))).toHaveLength(40);
  });

  it('holds the bound of the strangers’ queue under 30 chats writing at once', async () => {
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        repo.enqueueLow(
          { chatId: 2000 + i, method: 'sendMessage', params: { text: 'x' }, notBefore: new Date() },
          10,
        ),
      ),
    );
    expect(answers.filter(Boolean)).toHaveLength(10);
    expect((await rows()).filter((r) => r.priority === 'low')).toHaveLength(10);
  });

  it('keeps every message while Telegram is unreachable and sends them in order when it is back', async () => {
    await tg.down();
    for (const text of ['x1', 'x2']) await send(301, text);
    await run(5 * 60_000, 1000);
    const waiting = await rows();
    expect(waiting.every((r) => r.state === 'queued')).toBe(true);
    expect(waiting[0]?.attempts).toBeGreaterThan(3);
    expect(waiting[0]?.lastError).toContain('unreachable');
    await tg.up();
    await run(130_000, 1000);
    expect(tg.sentTo(301).map((m) => m.text)).toEqual(['x1', 'x2']);
    expect(logs.join('\n')).not.toContain(TOKEN);
  });

  it('retries a 5xx with a pause, and waits the retry_after of a 429', async () => {
    tg.refuse('sendMessage', { code: 502, description: 'Bad Gateway' });
    await send(401, 'after 502');
    await outbox.kick();
    expect(tg.sentTo(401)).toHaveLength(0);
    await run(1100);
    expect(tg.sentTo(401).map((m) => m.text)).toEqual(['after 502']);

    tg.refuse('sendMessage', { code: 429, description: 'Too Many Requests: retry after 7', retry_after: 7 });
    await send(402, 'after 429');
    await run(200);
    const asked = tg.callsOf('sendMessage').filter((c) => c.params.chat_id === 402).length;
    expect(asked).toBe(1);
    await run(6500);
    expect(tg.callsOf('sendMessage').filter((c) => c.params.chat_id === 402).length).toBe(1);
    await run(700);
    expect(tg.sentTo(402).map((m) => m.text)).toEqual(['after 429']);
  });

  it('unlinks a chat that blocked the bot, and gives up only on a permanent 400', async () => {
    const [user] = await database.db
      .insert(users)
      .values({ username: `blocker${Date.now()}` })
      .returning();
    await repo.link(user!.id, 501, '@blocker');
    tg.block(501);
    await send(501, 'one');
    await send(501, 'two');
    await outbox.kick();
    expect(await repo.linkOf(user!.id)).toBeNull();
    expect((await rows()).map((r) => r.state)).toEqual(['dead', 'dead']);

    await database.db.delete(telegramOutbox);
    await outbox.enqueue({
      chatId: 502,
      method: 'sendMessage',
      params: { text: 'a <b oops', parse_mode: 'HTML' },
    });
    await send(502, 'next');
    await run(1100);
    const [bad, next] = await rows();
    expect(bad?.state).toBe('dead');
    expect(bad?.lastError).toContain("can't parse entities");
    expect(next?.state).toBe('sent');
  });

  it("reads Telegram's refusals as Telegram writes them, and never names the token in an error", async () => {
    const wrong = new BotApi({ baseUrl: tg.url, token: '4242:not-the-token', timeoutMs: 2000 });
    const refused = await wrong.call('getMe').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(BotApiError);
    expect(refused).toMatchObject({ status: 401, description: 'Unauthorized' });
    const raw = await fetch(`${tg.url}/bot4242:not-the-token/getMe`);
    expect(await raw.json()).toEqual({ ok: false, error_code: 401, description: 'Unauthorized' });

    tg.refuse('sendMessage', { code: 429, description: 'Too Many Requests: retry after 5', retry_after: 5 });
    const api = new BotApi({ baseUrl: tg.url, token: TOKEN, timeoutMs: 2000 });
    const limited = await api.call('sendMessage', { chat_id: 1, text: 'x' }).catch((err: unknown) => err);
    expect(limited).toMatchObject({ status: 429, retryAfter: 5, transient: true });

    await tg.down();
    const away = await api.call('getMe').catch((err: unknown) => err);
    await tg.up();
    expect(away).toBeInstanceOf(BotApiUnreachable);
    expect(String((away as Error).message)).not.toContain(TOKEN);
    expect(JSON.stringify(away)).not.toContain(TOKEN);
  });

  it('edits the message sent earlier about the same ref, or sends one when there is none', async () => {
    await outbox.enqueue({
      chatId: 601,
      method: 'sendMessage',
      params: { text: 'Proposal: long BTC?' },
      ref: 'decision:9',
    });
    await outbox.enqueue({
      chatId: 601,
      method: 'editMessageText',
      params: { text: 'Confirmed in the browser.' },
      ref: 'decision:9',
    });
    await outbox.enqueue({
      chatId: 601,
      method: 'editMessageText',
      params: { text: 'Nothing before me.' },
      ref: 'decision:10',
    });
    await run(3000);
    expect(tg.sentTo(601).map((m) => [m.text, m.edits])).toEqual([
      ['Confirmed in the browser.', 1],
      ['Nothing before me.', 0],
    ]);
    expect((await rows()).every((r) => r.state === 'sent')).toBe(true);
  });
});
