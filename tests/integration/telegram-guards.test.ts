import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STEP_UP_DETAILS } from '../../src/contracts/auth';
import { ActivityList } from '../../src/contracts/activity';
import { TelegramLinkAnswer } from '../../src/contracts/notifications';
import { HOW_TO_LINK } from '../../server/modules/notifications/telegram/format';
import {
  CODE_REFUSED,
  NOT_THE_SENDER,
  PRIVATE_ONLY,
} from '../../server/modules/notifications/telegram/telegram-bot';
import { TelegramRepo } from '../../server/modules/notifications/telegram/telegram.repo';
import type { TelegramPart } from '../../server/modules/notifications/telegram';
import type { TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { startTelegramBotDouble, type SentMessage, type TelegramBotDouble } from '../helpers/telegram-double';
import { startBotApp, TOKEN, until, userOf, type Fakes } from './telegram-bot.support';

const LINK = '/api/notifications/telegram/link';
/** What the malformed updates carry: none of it may reach a log line. */
const MARK = 'PAYLOAD-MARK-93f1';

describe.each(dbTargets())('telegram bot guards on %s', (name) => {
  const target = useDatabase(name);
  let tg: TelegramBotDouble;
  let t: TestApp;
  let part: () => TelegramPart;
  let fakes: Fakes;
  const logs: string[] = [];

  beforeAll(async () => {
    tg = await startTelegramBotDouble(TOKEN);
    ({ t, part, fakes } = await startBotApp(target, { TELEGRAM_API_URL: tg.url }, { logs }));
  });
  afterAll(async () => {
    await t?.close();
    await tg?.close();
  });

  const waitText = async (chat: number, count: number) => {
    await until(() => tg.sentTo(chat).length >= count, 10_000, `${count} messages to ${chat}`);
    return tg.sentTo(chat)[count - 1] as SentMessage;
  };
  const code = async (headers: Record<string, string>) => {
    const res = await t.app.inject({ method: 'POST', url: LINK, headers });
    expect(res.statusCode, res.body).toBe(200);
    return TelegramLinkAnswer.parse(res.json()).code;
  };
  const linked = async (name: string, chat: number) => {
    const user = await userOf(t.app, name);
    const before = tg.sentTo(chat).length;
    tg.say(chat, `/start ${await code(user.headers)}`, { username: name });
    expect((await waitText(chat, before + 1)).text).toMatch(/^Linked to /);
    return user;
  };
  const activity = async (headers: Record<string, string>) =>
    ActivityList.parse((await t.app.inject({ url: '/api/account/activity', headers })).json());

  it('ignores updates it cannot read, keeps reading after them, and logs none of their content', async () => {
    const bad = [
      { message: MARK },
      { message: { message_id: 1, date: 1, chat: { id: MARK, type: 'private' }, text: '/positions' } },
      { message: { message_id: 1, date: 1, chat: { id: 1e300, type: 'private' }, text: MARK } },
      { message: { message_id: 1, date: 1, chat: { id: 9101, type: 'private' }, text: { MARK } } },
      { callback_query: { id: 7, from: { id: 9102 }, data: MARK } },
      { callback_query: { id: MARK, from: { id: MARK }, message: { chat: null }, data: MARK } },
    ];
    for (const update of bad) tg.push(update);
    tg.say(9103, 'hello after the bad ones');
    expect((await waitText(9103, 1)).text).toBe(HOW_TO_LINK);
    // Every update was confirmed: nothing is read again.
    await until(() => tg.queued === 0, 10_000, 'the offset past every update');
    const ignored = logs.filter((l) => l.includes('telegram update ignored'));
    expect(ignored).toHaveLength(bad.length);
    const all = logs.join('\n');
    expect(all).not.toContain(MARK);
    expect(all).not.toContain('params:');
    expect(tg.sentTo(9101)).toEqual([]);
  });

  it('links private chats only, and takes commands and presses only from the Telegram user who linked', async () => {
    const ann = await userOf(t.app, 'guard-ann');
    const group = -4242;
    const groupCode = await code(ann.headers);
    tg.say(group, `/start ${groupCode}`, { type: 'group' });
    expect((await waitText(group, 1)).text).toBe(PRIVATE_ONLY);
    expect((await part().state(ann.id)).linked).toBe(false);
    // The code was not spent in the group: it still links a private chat.
    tg.say(4301, `/start ${groupCode}`, { username: 'ann' });
    expect((await waitText(4301, 1)).text).toMatch(/^Linked to guard-ann/);

    // A group a link was left in (from before groups were refused) is not the account's either.
    const bob = await userOf(t.app, 'guard-bob');
    await new TelegramRepo(t.database.db).link(bob.id, -4343, 'Old group', 5555);
    tg.push({
      message: {
        message_id: 5,
        date: 1,
        chat: { id: -4343, type: 'supergroup', title: 'Old group' },
        from: { id: 5555, is_bot: false, first_name: 'Bob' },
        text: '/rules off',
      },
    });
    expect((await waitText(-4343, 1)).text).toBe(PRIVATE_ONLY);
    expect(fakes.rulesOff).toEqual([]);

    // A button in ann's chat pressed by someone else is refused, and stays usable by ann.
    await part().channel.deliver({
      kind: 'alert',
      userId: ann.id,
      title: 'Alert',
      body: '',
      actions: [
        { label: 'Long $100', action: { kind: 'order', symbol: 'BTC/USDT', side: 'long', amountUsd: 100 } },
      ],
    });
    const alert = await waitText(4301, 2);
    const data = alert.reply_markup?.inline_keyboard.flat()[0]?.callback_data ?? '';
    const stranger = 'cb-stranger';
    tg.push({
      callback_query: {
        id: stranger,
        from: { id: 999_001, is_bot: false, first_name: 'Eve' },
        message: { message_id: alert.message_id, date: 1, chat: { id: 4301, type: 'private' }, text: 'x' },
        chat_instance: 'ci',
        data,
      },
    });
    await until(() => tg.callbackAnswers.some((a) => a.callback_query_id === stranger));
    expect(tg.callbackAnswers.find((a) => a.callback_query_id === stranger)?.text).toBe(NOT_THE_SENDER);
    expect(await t.api.trading.positions(ann.id)).toEqual([]);
    tg.press(4301, alert, data);
    expect((await waitText(4301, 3)).text).toMatch(/^Bought /);
  });

  it('needs step-up to make a link code; a newer code voids the older ones, an unlink voids them all', async () => {
    const cy = await userOf(t.app, 'guard-cy');
    const id = cy.id;
    await t.database.db.execute(
      sql`update step_ups set confirmed_until = now() - interval '1 second' where user_id = ${id}`,
    );
    const refused = await t.app.inject({ method: 'POST', url: LINK, headers: cy.headers });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ detail: STEP_UP_DETAILS.required, code: 'step_up_required' });
    const stepUp = await t.app.inject({
      method: 'POST',
      url: '/api/auth/step-up',
      headers: cy.headers,
      payload: { password: 'correct horse battery' },
    });
    expect(stepUp.statusCode, stepUp.body).toBe(200);

    // 30 codes at once: exactly one of them works.
    const codes = await Promise.all(Array.from({ length: 30 }, () => code(cy.headers)));
    const live = await t.database.db.execute(
      sql`select count(*)::int as n from telegram_link_codes where user_id = ${id} and used_at is null`,
    );
    expect(JSON.stringify(live)).toContain('"n":1');

    const older = await code(cy.headers);
    const newer = await code(cy.headers);
    tg.say(4401, `/start ${older}`);
    expect((await waitText(4401, 1)).text).toBe(CODE_REFUSED);
    for (const c of codes) tg.say(4402, `/start ${c}`);
    await until(() => tg.sentTo(4402).length >= 1, 10_000, 'an answer');
    tg.say(4403, `/start ${newer}`);
    expect((await waitText(4403, 1)).text).toMatch(/^Linked to guard-cy/);
    expect(tg.sentTo(4402).every((m) => m.text === CODE_REFUSED)).toBe(true);

    const spare = await code(cy.headers);
    const unlink = await t.app.inject({ method: 'DELETE', url: LINK, headers: cy.headers });
    expect(unlink.statusCode).toBe(204);
    tg.say(4404, `/start ${spare}`);
    expect((await waitText(4404, 1)).text).toBe(CODE_REFUSED);
    expect((await part().state(id)).linked).toBe(false);

    const kinds = (await activity(cy.headers)).map((e) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(['telegram_linked', 'telegram_unlinked']));
  });

  it('answers unlinked chats behind the linked ones: 300 strangers do not hold up a proposal, and most of them are dropped', async () => {
    const dee = await linked('guard-dee', 4501);
    const strangers = Array.from({ length: 300 }, (_, i) => 60_000 + i);
    for (const chat of strangers) tg.say(chat, 'hi bot');
    await until(() => tg.queued === 0, 15_000, 'the strangers read');
    await until(
      async () =>
        Number(
          (
            (await t.database.db.execute(
              sql`select count(*)::int as n from telegram_outbox where priority = 'low' and state = 'queued'`,
            )) as unknown as { rows: { n: number }[] }
          ).rows[0]?.n ?? 0,
        ) > 0,
      10_000,
      'lines queued for the strangers',
    );
    const asked = Date.now();
    await part().channel.deliver({
      kind: 'proposal',
      userId: dee.id,
      title: "Rule 'BTC news' proposes: long BTC for $100",
      body: 'On paper.',
      ref: 'decision:4242',
      actions: [{ label: 'Reject', action: { kind: 'answer', decisionId: '4242', answer: 'reject' } }],
    });
    const proposal = await waitText(4501, 2);
    expect(proposal.at - asked).toBeLessThan(1500);
    await new Promise((r) => setTimeout(r, 1500));
    const answered = strangers.filter((c) => tg.sentTo(c).length > 0).length;
    expect(answered).toBeGreaterThan(0);
    expect(answered).toBeLessThan(200);
  });
});
