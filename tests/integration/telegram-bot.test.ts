import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TelegramLinkAnswer } from '../../src/contracts/notifications';
import { telegramLinks } from '../../server/db/schema/notifications';
import {
  BUTTON_USED,
  CODE_REFUSED,
  LIVE_ORDERS_OFF,
} from '../../server/modules/notifications/telegram/telegram-bot';
import { HOW_TO_LINK } from '../../server/modules/notifications/telegram/format';
import type { TelegramPart } from '../../server/modules/notifications/telegram';
import type { TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { startTelegramBotDouble, type SentMessage, type TelegramBotDouble } from '../helpers/telegram-double';
import { skewedClock, startBotApp, TOKEN, until, userOf, type Fakes } from './telegram-bot.support';

const LINK = '/api/notifications/telegram/link';

describe.each(dbTargets())('telegram bot (long polling) on %s', (name) => {
  const target = useDatabase(name);
  let tg: TelegramBotDouble;
  let t: TestApp;
  let part: () => TelegramPart;
  let fakes: Fakes;
  const clock = skewedClock();
  const logs: string[] = [];

  beforeAll(async () => {
    tg = await startTelegramBotDouble(TOKEN);
    // A webhook left from an earlier run in webhook mode: polling removes it first.
    await fetch(`${tg.url}/bot${TOKEN}/setWebhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://old.example.com/hook' }),
    });
    ({ t, part, fakes } = await startBotApp(
      target,
      { TELEGRAM_API_URL: tg.url, NEWS_SOURCES: 'telegram' },
      { clock, logs },
    ));
  });
  afterAll(async () => {
    await t?.close();
    await tg?.close();
  });

  const last = (chat: number) => tg.sentTo(chat).at(-1);
  const waitText = async (chat: number, count: number) => {
    await until(() => tg.sentTo(chat).length >= count, 8000, `${count} messages to ${chat}`);
    return tg.sentTo(chat)[count - 1] as SentMessage;
  };
  /** Links `chat` to a new user through the API and `/start`. */
  const linked = async (name: string, chat: number) => {
    const user = await userOf(t.app, name);
    const code = TelegramLinkAnswer.parse(
      (await t.app.inject({ method: 'POST', url: LINK, headers: user.headers })).json(),
    ).code;
    const before = tg.sentTo(chat).length;
    tg.say(chat, `/start ${code}`, { username: name });
    expect((await waitText(chat, before + 1)).text).toMatch(/^Linked to /);
    return user;
  };
  const buttons = (m: SentMessage) => m.reply_markup?.inline_keyboard.flat() ?? [];

  it('links a chat with a one-time code: of 30 chats sending it at once exactly one is linked', async () => {
    const ann = await userOf(t.app, 'ann');
    const res = await t.app.inject({ method: 'POST', url: LINK, headers: ann.headers });
    expect(res.statusCode).toBe(200);
    const answer = TelegramLinkAnswer.parse(res.json());
    expect(answer.code).toMatch(/^[A-Za-z0-9_-]{20,64}$/);
    expect(answer.url).toBe(`https://t.me/${tg.username}?start=${answer.code}`);
    const expires = Date.parse(answer.expires_at) - clock.now();
    expect(expires).toBeGreaterThan(9.9 * 60_000);
    expect(expires).toBeLessThanOrEqual(10 * 60_000);

    const chats = Array.from({ length: 30 }, (_, i) => 1000 + i);
    for (const chat of chats) tg.say(chat, `/start ${answer.code}`);
    await until(() => chats.every((c) => tg.sentTo(c).length === 1), 10_000, 'an answer in every chat');
    const texts = chats.map((c) => last(c)?.text ?? '');
    expect(texts.filter((x) => x.startsWith('Linked to ann'))).toHaveLength(1);
    expect(texts.filter((x) => x === CODE_REFUSED)).toHaveLength(29);
    const links = await t.database.db.select().from(telegramLinks).where(eq(telegramLinks.userId, ann.id));
    expect(links).toHaveLength(1);
    expect(texts[chats.indexOf(links[0]!.chatId)]).toMatch(/^Linked to ann/);
    expect(await part().state(ann.id)).toMatchObject({ configured: true, bot: tg.username, linked: true });

    // Only the code's hash is kept.
    const stored = await t.database.db.execute(`select code_hash from telegram_link_codes`);
    expect(JSON.stringify(stored)).not.toContain(answer.code);
  });

  it('refuses an expired code, and tells an unlinked chat how to link', async () => {
    const bea = await userOf(t.app, 'bea');
    const { code } = TelegramLinkAnswer.parse(
      (await t.app.inject({ method: 'POST', url: LINK, headers: bea.headers })).json(),
    );
    clock.skip(10 * 60_000 + 1000);
    tg.say(2001, `/start ${code}`);
    expect((await waitText(2001, 1)).text).toBe(CODE_REFUSED);
    expect((await part().state(bea.id)).linked).toBe(false);

    tg.say(2002, 'hello?');
    tg.say(2003, '/positions');
    expect((await waitText(2002, 1)).text).toBe(HOW_TO_LINK);
    expect((await waitText(2003, 1)).text).toBe(HOW_TO_LINK);
    // A group's chatter that is not a command gets nothing.
    tg.say(-2004, 'gm all', { type: 'group' });
    tg.say(2002, 'still there?');
    await waitText(2002, 2);
    expect(tg.sentTo(-2004)).toHaveLength(0);
  });

  it('answers the commands of a linked chat; /flatten asks first; /unlink unlinks', async () => {
    const cy = await linked('cyd', 3001);
    tg.say(3001, '/help');
    expect((await waitText(3001, 2)).text).toContain('/flatten');
    tg.say(3001, '/positions');
    expect((await waitText(3001, 3)).text).toBe('No open positions (paper).');
    tg.say(3001, '/pnl');
    expect((await waitText(3001, 4)).text).toMatch(
      /^Unrealised P&L 0\.00 USDT on 0 open positions \(paper\)\. Equity /,
    );
    tg.say(3001, '/rules off');
    expect((await waitText(3001, 5)).text).toBe('All 2 of your rules are off.');
    expect(fakes.rulesOff).toEqual([cy.id]);

    tg.say(3001, '/flatten');
    const question = await waitText(3001, 6);
    expect(question.text).toBe('Close every open position on paper?');
    expect(buttons(question).map((b) => b.text)).toEqual(['Yes, close all', 'No']);
    tg.press(3001, question, buttons(question)[1]!.callback_data);
    await until(() => question.edits === 1, 8000, 'the question edited');
    expect(question.text).toBe('Close every open position on paper?\n\nNothing was closed.');
    expect(buttons(question)).toEqual([]);

    tg.say(3001, '/unlink');
    expect((await waitText(3001, 7)).text).toMatch(/^Unlinked/);
    expect((await part().state(cy.id)).linked).toBe(false);
    tg.say(3001, '/positions');
    expect((await waitText(3001, 8)).text).toBe(HOW_TO_LINK);
  });

  it('runs a button once: 30 presses of Long place one order; Close and /flatten act on the answer', async () => {
    const dee = await linked('dee', 4001);
    await part().channel.deliver({
      kind: 'alert',
      userId: dee.id,
      title: 'Binance lists <KAITO> & more',
      body: 'Impact 85 · bullish',
      url: 'https://example.com/a?b=1&c=2',
      actions: [
        { label: 'Long $100', action: { kind: 'order', symbol: 'BTC/USDT', side: 'long', amountUsd: 100 } },
        { label: 'Short $100', action: { kind: 'order', symbol: 'BTC/USDT', side: 'short', amountUsd: 100 } },
      ],
    });
    const alert = await waitText(4001, 2);
    expect(alert.parse_mode).toBe('HTML');
    expect(alert.raw).toContain('<b>Binance lists &lt;KAITO&gt; &amp; more</b>');
    expect(alert.text).toBe(
      'Binance lists <KAITO> & more\nImpact 85 · bullish\nhttps://example.com/a?b=1&c=2',
    );
    const [long, short] = buttons(alert);
    expect(long!.callback_data).not.toContain('BTC');
    expect(Buffer.byteLength(long!.callback_data)).toBeLessThanOrEqual(64);

    const ids = Array.from({ length: 30 }, () => tg.press(4001, alert, long!.callback_data));
    await until(
      () => ids.every((id) => tg.callbackAnswers.some((a) => a.callback_query_id === id)),
      10_000,
      'every press answered',
    );
    const refused = tg.callbackAnswers.filter(
      (a) => ids.includes(a.callback_query_id) && a.text === BUTTON_USED,
    );
    expect(refused).toHaveLength(29);
    const fill = await waitText(4001, 3);
    expect(fill.text).toMatch(/^Bought [\d.]+ BTC\/USDT at [\d.]+ on paper \(\d+\.\d\d USDT\)\./);
    const positions = await t.api.trading.positions(dee.id);
    expect(positions).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(tg.sentTo(4001)).toHaveLength(3);

    // Close under the fill: the position on that account, its own size.
    await part().channel.deliver({
      kind: 'fill',
      userId: dee.id,
      title: 'Bought BTC',
      body: '',
      actions: [{ label: 'Close', action: { kind: 'close', symbol: 'BTC/USDT', account: 'paper' } }],
    });
    const fillNote = await waitText(4001, 4);
    tg.press(4001, fillNote, buttons(fillNote)[0]!.callback_data);
    expect((await waitText(4001, 5)).text).toMatch(
      /^On paper: Closed BTC\/USDT long: [\d.]+ at [\d.]+, realised [+-]?[\d.]+ USDT, fee [\d.]+ USDT\.$/,
    );
    expect(await t.api.trading.positions(dee.id)).toHaveLength(0);

    // A button older than five minutes does nothing.
    clock.skip(5 * 60_000 + 1000);
    const pressed = tg.press(4001, alert, short!.callback_data);
    await until(() => tg.callbackAnswers.some((a) => a.callback_query_id === pressed));
    expect(tg.callbackAnswers.find((a) => a.callback_query_id === pressed)?.text).toBe(BUTTON_USED);
    expect(await t.api.trading.positions(dee.id)).toHaveLength(0);
  });

  it('places an order on a live key only with telegram_live_orders on, and prints the answer', async () => {
    const eve = await linked('eve', 5001);
    fakes.liveUsers.add(eve.id);
    const alert = async (n: number) => {
      await part().channel.deliver({
        kind: 'alert',
        userId: eve.id,
        title: `Alert ${n}`,
        body: '',
        actions: [
          { label: 'Long $100', action: { kind: 'order', symbol: 'BTC/USDT', side: 'long', amountUsd: 100 } },
        ],
      });
      return waitText(5001, n);
    };
    const first = await alert(2);
    tg.press(5001, first, buttons(first)[0]!.callback_data);
    expect((await waitText(5001, 3)).text).toBe(LIVE_ORDERS_OFF);
    expect(fakes.liveOrders).toEqual([]);

    fakes.liveAllowed.add(eve.id);
    const second = await alert(4);
    tg.press(5001, second, buttons(second)[0]!.callback_data);
    expect((await waitText(5001, 5)).text).toBe(
      'Bought 0.00123 BTCUSDT at 64000.5 on Binance live key abcd…wxyz (78.72 USDT).',
    );
    expect(fakes.liveOrders).toEqual([{ userId: eve.id, amount: 100 }]);

    // An answer that does not say what happened is looked up, never called a failure.
    fakes.unknownOutcome = true;
    const third = await alert(6);
    tg.press(5001, third, buttons(third)[0]!.callback_data);
    expect((await waitText(5001, 7)).text).toBe(
      'The exchange did not say whether the order was placed. It is being looked up; the answer follows here.',
    );
    expect((await waitText(5001, 8)).text).toBe(
      'Bought 0.00123 BTCUSDT at 64000.5 on Binance live key abcd…wxyz (78.72 USDT).',
    );
  });

  it('answers a proposal with Confirm and edits it; a later note about the same ref edits the message', async () => {
    const fay = await linked('fay', 6001);
    await part().channel.deliver({
      kind: 'proposal',
      userId: fay.id,
      title: "Rule 'BTC news' asks: long BTC/USDT 100 USDT?",
      body: 'Answer within 60 s.',
      ref: 'decision:7',
      actions: [
        { label: 'Confirm', action: { kind: 'answer', decisionId: '7', answer: 'confirm' } },
        { label: 'Reject', action: { kind: 'answer', decisionId: '7', answer: 'reject' } },
      ],
    });
    const proposal = await waitText(6001, 2);
    tg.press(6001, proposal, buttons(proposal)[0]!.callback_data);
    await until(() => proposal.edits === 1, 8000, 'the proposal edited');
    expect(fakes.answers).toEqual([{ userId: fay.id, decisionId: '7', answer: 'confirm', via: 'telegram' }]);
    expect(proposal.text).toContain("Confirmed: the rule's order for decision 7 went out.");
    expect(buttons(proposal)).toEqual([]);

    await part().channel.deliver({
      kind: 'proposal',
      userId: fay.id,
      title: 'Second proposal',
      body: '',
      ref: 'decision:8',
      actions: [{ label: 'Confirm', action: { kind: 'answer', decisionId: '8', answer: 'confirm' } }],
    });
    const second = await waitText(6001, 3);
    await part().channel.deliver({
      kind: 'answered',
      userId: fay.id,
      title: 'Second proposal',
      body: 'Rejected in the browser.',
      ref: 'decision:8',
      replaces: true,
    });
    await until(() => second.edits === 1, 8000, 'the second proposal edited');
    expect(second.text).toBe('Second proposal\nRejected in the browser.');
    expect(buttons(second)).toEqual([]);
    expect(tg.sentTo(6001)).toHaveLength(3);
  });

  it('is the one reader of the updates: channel posts become news, private messages never do', async () => {
    const since = Date.now();
    tg.post(-100777, 'Upbit lists ARKM in KRW market');
    tg.say(7001, 'Secret private words about a BTC pump');
    const signals = async () =>
      (await t.app.inject({ url: '/api/signals?limit=50' })).json() as
        { signals?: { content?: string }[] } | { content?: string }[];
    const texts = async () => {
      const body = await signals();
      const list = Array.isArray(body) ? body : (body.signals ?? []);
      return JSON.stringify(list);
    };
    await until(async () => (await texts()).includes('Upbit lists ARKM'), 10_000, 'the channel post as news');
    await waitText(7001, 1);
    expect(await texts()).not.toContain('Secret private words');
    expect(tg.webhook).toBeNull();
    expect(tg.callsOf('deleteWebhook')).toHaveLength(1);
    // Every poll since is the bot's own (it asks for button presses too): no second reader.
    const polls = tg.callsOf('getUpdates').filter((c) => c.at >= since);
    expect(polls.length).toBeGreaterThan(0);
    expect(polls.every((c) => (c.params.allowed_updates as string[]).includes('callback_query'))).toBe(true);
  });

  it('never writes the token to the logs, whatever fails', async () => {
    tg.refuse('getUpdates', { code: 502, description: 'Bad Gateway' });
    tg.refuse('sendMessage', { code: 400, description: `Bad Request: chat not found` });
    tg.say(8001, 'hi');
    await until(() => logs.some((l) => l.includes('telegram message refused')), 10_000, 'the refusal logged');
    await tg.down();
    await new Promise((r) => setTimeout(r, 1500));
    await tg.up();
    await until(() => logs.some((l) => l.includes('telegram updates not read')), 10_000, 'the outage logged');
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.join('\n')).not.toContain(TOKEN);
    expect(logs.join('\n')).not.toContain(TOKEN.split(':')[1]!);
  });
});
