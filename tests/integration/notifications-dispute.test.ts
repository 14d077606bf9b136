import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TelegramLinkAnswer } from '../../src/contracts/notifications';
import { Rule, type Decision } from '../../src/contracts/rules';
import { IngestResponse } from '../../src/contracts/signals';
import type { Position } from '../../src/contracts/trading';
import { exchangeKeys } from '../../server/db/schema/exchanges';
import { CLOSE_IN_APP } from '../../server/modules/notifications/telegram/telegram-bot';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { startPushDouble, type PushDouble } from '../helpers/push-double';
import { startTelegramBotDouble, type SentMessage, type TelegramBotDouble } from '../helpers/telegram-double';
import { AuthClient } from './auth.support';
import { TOKEN as INGEST } from './news.support';
import { ledger } from './rules.support';
import { TOKEN, until } from './telegram-bot.support';

const PASSWORD = 'correct horse battery';

/**
 * A story a rule traded, disputed by a less trusted source: the one who holds what the rule opened is
 * asked in Telegram (with a Close button that closes it) and by Web Push, nothing is closed for them;
 * a trusted report of the same denial then retracts the story and the rule unwinds. Through the app as
 * `npm start` wires it, against the Telegram Bot API double and the Web Push double (both on loopback).
 */
describe.each(dbTargets())('a disputed story asks those who traded it on %s', (name) => {
  const target = useDatabase(name);
  let tg: TelegramBotDouble;
  let push: PushDouble;
  let t: TestApp;

  beforeAll(async () => {
    tg = await startTelegramBotDouble(TOKEN);
    push = await startPushDouble();
    t = await startTestApp(
      target,
      {
        TELEGRAM_BOT_TOKEN: TOKEN,
        TELEGRAM_API_URL: tg.url,
        NEWS_SOURCES: 'webhook',
        INGEST_TOKEN: INGEST,
      },
      { telegram: { longPollSeconds: 1, outboxTickMs: 50 }, push: { testOrigins: [push.url] } },
    );
  });
  afterAll(async () => {
    await t?.close();
    await tg?.close();
    await push?.close();
  });

  const buttons = (m: SentMessage) => m.reply_markup?.inline_keyboard.flat() ?? [];
  const waitFor = async (chat: number, match: (m: SentMessage) => boolean, what: string) => {
    await until(() => tg.sentTo(chat).some(match), 15_000, what);
    return tg.sentTo(chat).find(match) as SentMessage;
  };
  const payloadsOf = (id: string) =>
    push.received.filter((r) => r.id === id).map((r) => JSON.parse(r.payload) as Record<string, string>);

  /** A user with a linked chat, a push subscription and a rule that buys `asset` on good news. */
  const trader = async (name: string, chat: number, asset: string) => {
    const c = new AuthClient(t.app);
    expect((await c.signup(name, PASSWORD)).statusCode).toBe(201);
    expect((await c.login(name, PASSWORD)).statusCode).toBe(200);
    const id = (await c.send('GET', '/users/me')).json<{ id: string }>().id;
    const link = await c.send('POST', '/notifications/telegram/link');
    expect(link.statusCode, link.body).toBe(200);
    tg.say(chat, `/start ${TelegramLinkAnswer.parse(link.json()).code}`, { username: name });
    await waitFor(chat, (m) => m.text.startsWith('Linked to '), 'the link answer');
    const sub = push.subscribe();
    const subscribed = await c.send('POST', '/notifications/push', {
      endpoint: sub.endpoint,
      keys: sub.keys,
    });
    expect(subscribed.statusCode, subscribed.body).toBe(204);
    // No alerts: only the rule's own notes and the question about the story.
    expect((await c.send('PATCH', '/notifications', { alerts: false })).statusCode).toBe(200);
    expect((await c.send('PUT', '/rules/risk', { cooldown_minutes: 0 })).statusCode).toBe(200);
    const created = await c.send('POST', '/rules/', {
      ruleName: `${asset} good news`,
      conditions: { asset, sentiment: 'positive' },
      action: { type: 'trade', side: 'long', amount_usd: 300 },
    });
    expect(created.statusCode, created.body).toBe(201);
    await until(
      async () => t.api.notifications.dispatcher.settingsOf(id)?.alerts === false,
      15_000,
      'the dispatcher to read the settings',
    );
    return { c, id, sub, rule: Rule.parse(created.json()) };
  };
  const ingest = async (content: string, source_name: string, username?: string): Promise<string> => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/signals/ingest',
      headers: { authorization: `Bearer ${INGEST}` },
      payload: { content, source_name, ...(username === undefined ? {} : { username }) },
    });
    expect(res.statusCode, res.body).toBe(202);
    const id = IngestResponse.parse(res.json()).results[0]?.id;
    if (id === null || id === undefined) throw new Error(`not stored: ${res.body}`);
    return id;
  };
  const sizeOf = async (c: AuthClient, pair: string) =>
    (await c.send('GET', '/positions')).json<Position[]>().find((p) => p.symbol === pair)?.size ?? 0;
  const fired = async (c: AuthClient, ruleId: string, signalId: string): Promise<Decision> => {
    const authorization = `Bearer ${c.token ?? ''}`;
    let found: Decision | undefined;
    await until(
      async () => {
        found = (await ledger(t, authorization)).find(
          (d) => d.rule_id === ruleId && d.signal_id === signalId,
        );
        return found?.outcome === 'fired';
      },
      15_000,
      'the rule to fire',
    );
    return found as Decision;
  };

  it('asks in Telegram and by Web Push, closes nothing, and the Close button closes the position', async () => {
    const chat = 7401;
    const ann = await trader('dispute-ann', chat, 'SOL');
    // A user with retractions off is not asked.
    const quietChat = 7402;
    const bob = await trader('dispute-bob', quietChat, 'SOL');
    expect((await bob.c.send('PATCH', '/notifications', { retractions: false })).statusCode).toBe(200);
    await until(
      async () => t.api.notifications.dispatcher.settingsOf(bob.id)?.retractions === false,
      15_000,
      'the dispatcher to read bob’s settings',
    );

    const story = await ingest(
      'Visa integrates Solana USDC settlement for merchants across Europe',
      'Reuters',
    );
    await fired(ann.c, ann.rule.id, story);
    await fired(bob.c, bob.rule.id, story);
    const held = await sizeOf(ann.c, 'SOL/USDT');
    expect(held).toBeGreaterThan(0);

    const weak = await ingest(
      'Visa did not integrate Solana settlement for merchants in Europe; the report is fake',
      'X',
      'sol_watch',
    );
    const title =
      'A weaker source disputes a story you traded: Visa integrates Solana USDC settlement for merchants across Europe — disputed by X. Nothing was closed.';
    const asked = await waitFor(chat, (m) => m.text.startsWith(title), 'the question in Telegram');
    expect(asked.text).toContain(`Denied, unconfirmed (#${weak}): Visa did not integrate Solana settlement`);
    expect(buttons(asked).map((b) => b.text)).toEqual(['Close SOL']);
    const pushed = () => payloadsOf(ann.sub.id).filter((p) => p.tag === `dispute:${story}`);
    await until(() => pushed().length > 0, 15_000, 'the Web Push note');
    const [note] = pushed();
    expect(note?.title).toBe(title);
    expect(note?.body).toContain(`Denied, unconfirmed (#${weak})`);
    // Nothing was closed for anyone.
    await t.api.notifications.dispatcher.idle();
    expect(await sizeOf(ann.c, 'SOL/USDT')).toBeCloseTo(held, 8);
    expect(await sizeOf(bob.c, 'SOL/USDT')).toBeGreaterThan(0);
    expect(tg.sentTo(quietChat).filter((m) => m.text.includes('disputes'))).toEqual([]);
    expect(payloadsOf(bob.sub.id).filter((p) => p.tag === `dispute:${story}`)).toEqual([]);

    // The Close button closes the position, as the fill's Close does.
    tg.press(chat, asked, buttons(asked)[0]!.callback_data);
    await until(async () => (await sizeOf(ann.c, 'SOL/USDT')) === 0, 15_000, 'the position closed');
    await waitFor(chat, (m) => m.text.startsWith('On paper: '), 'the close answer');
    // Once: the dispute is asked about once, however often the bus repeats it.
    await t.app.bus.publish('signal.disputed', {
      disputedId: story,
      disputeId: weak,
      kind: 'denial',
      reason: 'again',
      sourceName: 'X',
      storySourceName: 'Reuters',
      headline: 'Visa integrates Solana USDC settlement for merchants across Europe',
      receivedAt: new Date().toISOString(),
    });
    await t.api.notifications.dispatcher.idle();
    await new Promise((r) => setTimeout(r, 200));
    expect(tg.sentTo(chat).filter((m) => m.text.startsWith(title))).toHaveLength(1);
    expect(pushed()).toHaveLength(1);
  });

  it('a Close for a key goes only while Telegram live orders are on, else the chat is told to close in the app', async () => {
    const chat = 7403;
    const cy = await trader('dispute-cy', chat, 'ADA');
    const [key] = await t.database.db
      .insert(exchangeKeys)
      .values({
        userId: cy.id,
        exchangeName: 'binance',
        environment: 'live',
        keyHint: 'abcd…wxyz',
        apiKeySealed: t.app.secrets.encrypt('not-a-real-key'),
        secretSealed: t.app.secrets.encrypt('not-a-real-secret'),
        masterKeyId: t.app.secrets.keyId,
        status: 'verified',
        permissions: [],
        warnings: [],
      })
      .returning({ id: exchangeKeys.id });
    const note = {
      kind: 'dispute' as const,
      userId: cy.id,
      title: 'A weaker source disputes a story you traded: ADA story — disputed by X. Nothing was closed.',
      body: 'Denied, unconfirmed (#1): fake.',
      actions: [
        { label: 'Close ADA', action: { kind: 'close' as const, symbol: 'ADAUSDT', account: 'paper' } },
        {
          label: 'Close ADA (key)',
          action: { kind: 'close' as const, symbol: 'ADAUSDT', account: key?.id ?? '' },
        },
      ],
      ref: 'dispute:ada-1',
    };
    await t.api.notifications.telegram.channel.deliver(note);
    const off = await waitFor(chat, (m) => m.text.startsWith('A weaker source disputes'), 'the question');
    expect(buttons(off).map((b) => b.text)).toEqual(['Close ADA']);
    expect(off.text).toContain(CLOSE_IN_APP);

    expect((await cy.c.send('POST', '/auth/step-up', { password: PASSWORD })).statusCode).toBe(200);
    expect((await cy.c.send('PATCH', '/notifications', { telegram_live_orders: true })).statusCode).toBe(200);
    const count = tg.sentTo(chat).length;
    await t.api.notifications.telegram.channel.deliver({ ...note, ref: 'dispute:ada-2' });
    const on = await waitFor(
      chat,
      (m) => tg.sentTo(chat).indexOf(m) >= count && m.text.startsWith('A weaker source disputes'),
      'the second question',
    );
    expect(buttons(on).map((b) => b.text)).toEqual(['Close ADA', 'Close ADA (key)']);
    expect(on.text).not.toContain(CLOSE_IN_APP);
  });

  it('a trusted report of the same denial, clustered into the dispute, retracts the story and the rule closes its position', async () => {
    const chat = 7404;
    const dee = await trader('dispute-dee', chat, 'AVAX');
    const story = await ingest(
      'Asset manager registers an Avalanche (AVAX) spot trust in Delaware, state records show',
      'Reuters',
    );
    const opened = await fired(dee.c, dee.rule.id, story);
    expect(await sizeOf(dee.c, 'AVAX/USDT')).toBeGreaterThan(0);
    const denial = 'The Delaware Avalanche trust registration is fake, the asset manager told reporters';
    const weak = await ingest(denial, 'X', 'avax_insider');
    await waitFor(chat, (m) => m.text.startsWith('A weaker source disputes'), 'the question');
    expect(await sizeOf(dee.c, 'AVAX/USDT')).toBeGreaterThan(0);

    const trusted = await t.app.inject({
      method: 'POST',
      url: '/api/signals/ingest',
      headers: { authorization: `Bearer ${INGEST}` },
      payload: { content: `${denial}, a spokesperson confirmed`, source_name: 'Bloomberg' },
    });
    expect(IngestResponse.parse(trusted.json()).results[0]).toMatchObject({ result: 'clustered', id: weak });
    const authorization = `Bearer ${dee.c.token ?? ''}`;
    let exit: string | null = null;
    await until(
      async () => {
        exit = (await ledger(t, authorization)).find((d) => d.id === opened.id)?.exit ?? null;
        return exit?.includes('; closed ') === true;
      },
      15_000,
      'the rule to unwind',
    );
    expect(exit).toMatch(new RegExp(`^closed: retracted by #${weak}; `));
    expect(await sizeOf(dee.c, 'AVAX/USDT')).toBeCloseTo(0, 8);
  });
});
