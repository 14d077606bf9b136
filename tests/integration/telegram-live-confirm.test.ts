import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExchangeKey } from '../../src/contracts/exchanges';
import { TelegramLinkAnswer } from '../../src/contracts/notifications';
import { Rule, type Decision } from '../../src/contracts/rules';
import { CONFIRM_IN_APP, CONFIRM_REFUSED } from '../../server/modules/notifications/telegram/telegram-bot';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { startTelegramBotDouble, type SentMessage, type TelegramBotDouble } from '../helpers/telegram-double';
import { startSignedDouble, type SignedDouble } from '../fixtures/binance-signed-double';
import { AuthClient } from './auth.support';
import { completedSignal, freshSignalId, ledger } from './rules.support';
import { TOKEN, until } from './telegram-bot.support';

const KEY = { apiKey: 'TgLiveKey0123456789abcdefghij', secret: 'tg-live-secret-0123456789' };
const PASSWORD = 'correct horse battery';
const CHAT = 7301;

/**
 * An ask rule on a live key, its proposal in the linked chat, and the user's setting for live orders from
 * Telegram: through the app as `npm start` wires it, against the Telegram Bot API double and the signed
 * Binance double (both on loopback).
 */
describe.each(dbTargets())('Confirm in Telegram on a live key on %s', (name) => {
  const target = useDatabase(name);
  let tg: TelegramBotDouble;
  let binance: SignedDouble;
  let t: TestApp;
  let ann: AuthClient;
  let annId = '';
  let rule: Rule;

  beforeAll(async () => {
    tg = await startTelegramBotDouble(TOKEN);
    binance = await startSignedDouble();
    binance.keys.set(KEY.apiKey, { ...KEY, ipRestrict: true });
    t = await startTestApp(
      target,
      {
        TELEGRAM_BOT_TOKEN: TOKEN,
        TELEGRAM_API_URL: tg.url,
        MARKET_SOURCE: 'sim',
        BINANCE_FAPI_URL: binance.url,
        BINANCE_API_URL: binance.url,
        BINANCE_DEMO_FAPI_URL: 'http://127.0.0.1:9',
        BINANCE_TIMEOUT_MS: '500',
        BINANCE_ORDER_SETTLE_MS: '300',
        NEWS_SOURCES: 'webhook',
      },
      { telegram: { longPollSeconds: 1, outboxTickMs: 50 } },
    );
    ann = new AuthClient(t.app);
    expect((await ann.signup('tg-live-ann', PASSWORD)).statusCode).toBe(201);
    expect((await ann.login('tg-live-ann', PASSWORD)).statusCode).toBe(200);
    annId = (await ann.send('GET', '/users/me')).json<{ id: string }>().id;
    const saved = await ann.send('POST', '/exchanges/', {
      exchangeName: 'binance',
      apiKey: KEY.apiKey,
      secretKey: KEY.secret,
    });
    expect(saved.statusCode, saved.body).toBe(201);
    const keyId = ExchangeKey.parse(saved.json()).id;
    const created = await ann.send('POST', '/rules/', {
      ruleName: 'ETH ask live',
      conditions: { asset: 'ETH' },
      action: { type: 'trade', side: 'long', amount_usd: 150, account: keyId },
      mode: 'ask',
      ask_window_sec: 300,
    });
    expect(created.statusCode, created.body).toBe(201);
    rule = Rule.parse(created.json());
    expect((await ann.send('PUT', '/rules/risk', { cooldown_minutes: 0 })).statusCode).toBe(200);

    const link = await ann.send('POST', '/notifications/telegram/link');
    expect(link.statusCode, link.body).toBe(200);
    tg.say(CHAT, `/start ${TelegramLinkAnswer.parse(link.json()).code}`, { username: 'ann' });
    await until(() => tg.sentTo(CHAT).some((m) => m.text.startsWith('Linked to ')), 10_000, 'the link');
    await until(
      async () => t.api.notifications.dispatcher.settingsOf(annId) !== undefined,
      10_000,
      'the dispatcher to know the chat',
    );
  });
  afterAll(async () => {
    await t?.close();
    await tg?.close();
    await binance?.close();
  });

  const auth = () => `Bearer ${ann.token ?? ''}`;
  const buttons = (m: SentMessage) => m.reply_markup?.inline_keyboard.flat() ?? [];
  const liveOrders = () => binance.orders.filter((o) => o.apiKey === KEY.apiKey);
  const setLiveOrders = async (on: boolean) => {
    const res = await ann.send('PATCH', '/notifications', { telegram_live_orders: on });
    expect(res.statusCode, res.body).toBe(200);
    await until(
      async () => t.api.notifications.dispatcher.settingsOf(annId)?.telegram_live_orders === on,
      10_000,
      'the dispatcher to read the setting',
    );
  };
  /** A matching headline decided now: the proposal it opened, and its message in the chat. */
  const propose = async (): Promise<{ decision: Decision; message: SentMessage }> => {
    await t.api.rules.engine.reload();
    const signalId = freshSignalId();
    const sent = tg.sentTo(CHAT).length;
    await t.api.rules.engine.evaluate(completedSignal({ id: signalId, assets: ['ETH'] }));
    const decision = (await ledger(t, auth())).find((d) => d.signal_id === signalId && d.rule_id === rule.id);
    expect(decision, 'a decision').toMatchObject({ outcome: 'asking', account_mode: 'live' });
    await until(() => tg.sentTo(CHAT).length > sent, 10_000, 'the proposal in the chat');
    return { decision: decision!, message: tg.sentTo(CHAT)[sent]! };
  };

  it('sends a live proposal without Confirm while live orders from Telegram are off, saying to confirm in the app', async () => {
    const { message } = await propose();
    expect(message.text).toContain("Rule 'ETH ask live' proposes: long ETH");
    expect(message.text).toContain(CONFIRM_IN_APP);
    expect(buttons(message).map((b) => b.text)).toEqual(['Reject']);
    expect(liveOrders()).toEqual([]);
  });

  it('refuses a Confirm pressed on a live proposal once the setting is off, and places nothing on the exchange', async () => {
    await setLiveOrders(true);
    const { decision, message } = await propose();
    expect(buttons(message).map((b) => b.text)).toEqual(['Confirm', 'Reject']);
    expect(message.text).not.toContain(CONFIRM_IN_APP);
    await setLiveOrders(false);

    const confirm = buttons(message).find((b) => b.text === 'Confirm')!;
    tg.press(CHAT, message, confirm.callback_data);
    await until(() => message.edits === 1, 10_000, 'the proposal edited');
    expect(message.text).toContain(CONFIRM_REFUSED);
    expect(buttons(message)).toEqual([]);
    await new Promise((r) => setTimeout(r, 500));
    expect(liveOrders()).toEqual([]);
    // The proposal still waits for an answer where live orders are confirmed: in the app.
    const rows = await t.database.db.execute(
      sql`select outcome, answered_via from rule_decisions where id = ${Number(decision.id)}`,
    );
    expect(JSON.stringify(rows)).toContain('"outcome":"asking"');
    const answered = await ann.send('POST', `/rules/decisions/${decision.id}/answer`, {
      answer: 'confirm',
      via: 'browser',
    });
    expect(answered.statusCode, answered.body).toBe(200);
    expect(liveOrders()).toHaveLength(1);
  });
});
