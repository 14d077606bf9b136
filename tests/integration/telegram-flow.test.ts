import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TelegramLinkAnswer } from '../../src/contracts/notifications';
import { IngestResponse } from '../../src/contracts/signals';
import type { Position } from '../../src/contracts/trading';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';
import { startTelegramBotDouble, type SentMessage, type TelegramBotDouble } from '../helpers/telegram-double';
import { TOKEN as INGEST } from './news.support';
import { ledger } from './rules.support';
import { TOKEN, until } from './telegram-bot.support';

/**
 * The whole way from a headline to a Telegram chat and back, through the app as `npm start` wires it
 * (the notifications module's own Telegram part, the rules engine, the news webhook): nothing in between
 * is a stand-in except Telegram itself, a local double of the Bot API.
 */
describe.each(dbTargets())('Telegram from headline to order on %s', (name) => {
  const target = useDatabase(name);
  let tg: TelegramBotDouble;
  let t: TestApp;

  beforeAll(async () => {
    tg = await startTelegramBotDouble(TOKEN);
    t = await startTestApp(
      target,
      {
        TELEGRAM_BOT_TOKEN: TOKEN,
        TELEGRAM_API_URL: tg.url,
        NEWS_SOURCES: 'webhook',
        INGEST_TOKEN: INGEST,
      },
      { telegram: { longPollSeconds: 1, outboxTickMs: 50 } },
    );
  });
  afterAll(async () => {
    await t?.close();
    await tg?.close();
  });

  const messagesTo = (chat: number) => tg.sentTo(chat);
  const waitFor = async (chat: number, match: (m: SentMessage) => boolean, what: string) => {
    await until(() => messagesTo(chat).some(match), 15_000, what);
    return messagesTo(chat).find(match) as SentMessage;
  };
  const buttons = (m: SentMessage) => m.reply_markup?.inline_keyboard.flat() ?? [];

  /** A user whose chat `chat` is linked with the code the API gave them. */
  const linkedUser = async (name: string, chat: number) => {
    const { authorization } = await signUpAndLogIn(t.app, name);
    const link = await t.app.inject({
      method: 'POST',
      url: '/api/notifications/telegram/link',
      headers: { authorization },
    });
    expect(link.statusCode, link.body).toBe(200);
    const { code, url } = TelegramLinkAnswer.parse(link.json());
    expect(url).toBe(`https://t.me/${tg.username}?start=${code}`);
    tg.say(chat, `/start ${code}`, { username: name });
    await waitFor(chat, (m) => m.text.startsWith('Linked to '), 'the link answer');
    return authorization;
  };
  const askRule = async (authorization: string, asset: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/rules/',
      headers: { authorization },
      payload: {
        ruleName: `ask ${asset}`,
        conditions: { asset, sentiment: 'positive' },
        action: { type: 'trade', side: 'long', amount_usd: 150 },
        mode: 'ask',
      },
    });
    expect(res.statusCode, res.body).toBe(201);
  };
  const headline = async (content: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/signals/ingest',
      headers: { authorization: `Bearer ${INGEST}` },
      payload: { content, source_name: 'Desk' },
    });
    expect(res.statusCode, res.body).toBe(202);
    return IngestResponse.parse(res.json()).results[0]?.id ?? null;
  };
  const positions = async (authorization: string) =>
    (await t.app.inject({ url: '/api/positions', headers: { authorization } })).json() as Position[];

  it('sends an ask rule’s proposal to the linked chat, and Confirm there places the order', async () => {
    const chat = 7101;
    const authorization = await linkedUser('tg-confirm', chat);
    await askRule(authorization, 'SOL');
    await headline('Solana (SOL) ETF approved by the SEC, first-day inflows hit a record');

    const proposal = await waitFor(chat, (m) => buttons(m).some((b) => b.text === 'Confirm'), 'a proposal');
    expect(proposal.text).toMatch(/SOL/);
    expect(proposal.text).toMatch(/ETF approved/);
    expect(buttons(proposal).map((b) => b.text)).toEqual(expect.arrayContaining(['Confirm', 'Reject']));
    expect(await positions(authorization)).toEqual([]);

    const confirm = buttons(proposal).find((b) => b.text === 'Confirm')!;
    tg.press(chat, proposal, confirm.callback_data);
    await until(async () => (await positions(authorization)).length === 1, 15_000, 'the position');
    expect((await positions(authorization))[0]?.symbol).toBe('SOL/USDT');
    // The position is open before the decision's outcome is written: wait for the outcome.
    await until(
      async () => (await ledger(t, authorization)).some((d) => d.asset === 'SOL' && d.outcome === 'fired'),
      15_000,
      'the fired decision',
    );
    const fired = (await ledger(t, authorization)).find((d) => d.asset === 'SOL');
    expect(fired).toMatchObject({ outcome: 'fired', answered_via: 'telegram' });
    // The proposal's message says what became of it (the server's answer, not the button's hope).
    await until(() => tg.sentTo(chat).some((m) => m.edits > 0), 15_000, 'the proposal edited');

    // A second press of the same button does nothing more: one order, ever.
    tg.press(chat, proposal, confirm.callback_data);
    await until(() => tg.callbackAnswers.length >= 2, 15_000, 'both presses answered');
    expect(await positions(authorization)).toHaveLength(1);
  });

  it('places nothing when the proposal is rejected in the chat', async () => {
    const chat = 7102;
    const authorization = await linkedUser('tg-reject', chat);
    await askRule(authorization, 'AVAX');
    await headline('Avalanche (AVAX) treasury announces a buyback after record quarterly revenue');
    const proposal = await waitFor(chat, (m) => buttons(m).some((b) => b.text === 'Reject'), 'a proposal');
    tg.press(chat, proposal, buttons(proposal).find((b) => b.text === 'Reject')!.callback_data);
    await until(
      async () => (await ledger(t, authorization)).some((d) => d.reason === 'rejected'),
      15_000,
      'the rejection in the ledger',
    );
    expect(await positions(authorization)).toEqual([]);
  });

  it('sends alerts at or above the user’s threshold to the chat, and none below it', async () => {
    const chat = 7103;
    const authorization = await linkedUser('tg-alerts', chat);
    const set = await t.app.inject({
      method: 'PATCH',
      url: '/api/notifications',
      headers: { authorization },
      payload: { alerts: true, alert_threshold: 75 },
    });
    expect(set.statusCode, set.body).toBe(200);
    // The dispatcher hears of the change on the bus, as it would from another process.
    const me = await t.app.inject({ url: '/api/users/me', headers: { authorization } });
    const userId = (me.json() as { id: string }).id;
    const threshold = async (n: number) =>
      until(
        async () => t.api.notifications.dispatcher.settingsOf(userId)?.alert_threshold === n,
        15_000,
        `the dispatcher to read the threshold ${n}`,
      );
    await threshold(75);
    const before = messagesTo(chat).length;
    const id = await headline('BREAKING: SEC approves spot Ethereum ETF; trading starts tomorrow');
    expect(id).not.toBeNull();
    const alert = await waitFor(
      chat,
      (m) => messagesTo(chat).indexOf(m) >= before && /SEC approves spot Ethereum ETF/.test(m.text),
      'the alert',
    );
    expect(alert.text).toMatch(/ETH/);
    expect(buttons(alert).map((b) => b.text)).toEqual(
      expect.arrayContaining([expect.stringMatching(/Long/), expect.stringMatching(/Short/)]),
    );
    // Raised to 95, a headline of impact 89 (a hack: high, and still below it) sends nothing.
    await t.app.inject({
      method: 'PATCH',
      url: '/api/notifications',
      headers: { authorization },
      payload: { alert_threshold: 95 },
    });
    await threshold(95);
    const count = messagesTo(chat).length;
    await headline('Litecoin Foundation hacked: $400M of LTC drained from treasury wallet');
    await new Promise((r) => setTimeout(r, 1500));
    expect(
      messagesTo(chat)
        .slice(count)
        .filter((m) => /Litecoin/.test(m.text)),
    ).toEqual([]);
  });
});
