import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STEP_UP_DETAILS } from '../../src/contracts/auth';
import {
  DEFAULT_NOTIFICATION_SETTINGS,
  NotificationSettings,
  NotificationsState,
} from '../../src/contracts/notifications';
import { notificationSettings, pushSubscriptions, serverKeys } from '../../server/db/schema';
import { rotateSecretsKey } from '../../server/db/tools/rotate-secrets-key';
import { NotificationsRepo } from '../../server/modules/notifications/notifications.repo';
import { PUSH_REFUSALS } from '../../server/modules/notifications/push/endpoint-policy';
import { createSecrets } from '../../server/plugins/secrets';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { startPushDouble, type PushDouble } from '../helpers/push-double';
import { signedInClient, userIdOf, type AuthClient } from './auth.support';
import { completedSignal, freshSignalId, until } from './rules.support';

const PASSWORD = 'correct horse battery';

describe.each(dbTargets())('notifications API and Web Push on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let push: PushDouble;

  beforeAll(async () => {
    push = await startPushDouble();
    // The push double is on loopback: this test's app takes that one origin, and no other loopback address.
    t = await startTestApp(target, {}, { push: { testOrigins: [push.url] } });
  });
  afterAll(async () => {
    await t.close();
    await push.close();
  });

  const signedIn = (name: string) => signedInClient(t.app, name, PASSWORD);
  const userId = userIdOf;
  const state = async (c: AuthClient) =>
    NotificationsState.parse((await c.send('GET', '/notifications')).json());
  const subscribe = async (c: AuthClient) => {
    const sub = push.subscribe();
    const res = await c.send('POST', '/notifications/push', { endpoint: sub.endpoint, keys: sub.keys });
    expect(res.statusCode, res.body).toBe(204);
    return sub;
  };
  const payloadsOf = (id: string) =>
    push.received.filter((r) => r.id === id).map((r) => JSON.parse(r.payload) as Record<string, string>);

  it('refuses every call without a token', async () => {
    for (const [method, url] of [
      ['GET', '/api/notifications'],
      ['PATCH', '/api/notifications'],
      ['POST', '/api/notifications/push'],
      ['DELETE', '/api/notifications/push'],
    ] as const) {
      const res = await t.app.inject({ method, url, payload: method === 'GET' ? undefined : {} });
      expect(res.statusCode, `${method} ${url}`).toBe(401);
    }
  });

  it('answers the defaults, no Telegram part, and the server VAPID public key', async () => {
    const c = await signedIn('nina');
    const s = await state(c);
    expect(s.settings).toEqual(DEFAULT_NOTIFICATION_SETTINGS);
    expect(s.telegram).toEqual({ configured: false, bot: null, linked: false, chat: null, linked_at: null });
    expect(s.push.configured).toBe(true);
    expect(Buffer.from(s.push.public_key ?? '', 'base64url')).toHaveLength(65);
    expect(s.push.subscriptions).toBe(0);
    // Made once: every later answer carries the same key.
    expect((await state(c)).push.public_key).toBe(s.push.public_key);
    // Its private half is sealed like the exchange keys, and a new master key re-seals it.
    const [row] = await t.database.db.select().from(serverKeys);
    expect(row?.publicKey).toBe(s.push.public_key);
    expect(row?.privateKeySealed).toMatch(/^v1\./);
    const to = createSecrets(randomBytes(32));
    expect((await rotateSecretsKey(t.database.db, t.app.secrets, to)).serverKeys).toBe(1);
    expect((await rotateSecretsKey(t.database.db, t.app.secrets, to)).serverKeys).toBe(0);
    const [moved] = await t.database.db.select().from(serverKeys);
    expect(to.decrypt(moved?.privateKeySealed ?? '')).toBe(
      t.app.secrets.decrypt(row?.privateKeySealed ?? ''),
    );
    // Put back, for the pushes the other tests send.
    await rotateSecretsKey(t.database.db, to, t.app.secrets);
  });

  it('changes only the settings sent, and names what is wrong with a bad one', async () => {
    const c = await signedIn('omar');
    const changed = await c.send('PATCH', '/notifications', { alert_threshold: 85, daily_pnl: true });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toEqual({
      ...DEFAULT_NOTIFICATION_SETTINGS,
      alert_threshold: 85,
      daily_pnl: true,
    });
    expect((await state(c)).settings.alert_threshold).toBe(85);

    for (const [payload, message] of [
      [{ alert_threshold: 83 }, 'The alert threshold is a number from 50 to 95 in steps of 5.'],
      [{ alert_threshold: 100 }, 'The alert threshold is a number from 50 to 95 in steps of 5.'],
      [{ alerts: 'yes' }, 'alerts must be true or false.'],
    ] as const) {
      const res = await c.send('PATCH', '/notifications', payload);
      expect(res.statusCode).toBe(422);
      expect(JSON.stringify(res.json())).toContain(message);
    }
    const unknown = await c.send('PATCH', '/notifications', { sms: true });
    expect(unknown.statusCode).toBe(422);
    expect((await state(c)).settings).toEqual({
      ...DEFAULT_NOTIFICATION_SETTINGS,
      alert_threshold: 85,
      daily_pnl: true,
    });
  });

  it('turns on orders on live keys from Telegram only with a sign-in confirmed in the last minutes', async () => {
    const c = await signedIn('pia');
    const id = await userId(c);
    await t.database.db.execute(
      sql`update step_ups set confirmed_until = now() - interval '1 second' where user_id = ${id}`,
    );
    const refused = await c.send('PATCH', '/notifications', { telegram_live_orders: true });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ detail: STEP_UP_DETAILS.required, code: 'step_up_required' });
    expect(await t.api.notifications.settings.liveOrdersAllowed(id)).toBe(false);
    // Other settings need no confirmation.
    expect((await c.send('PATCH', '/notifications', { fills: false })).statusCode).toBe(200);

    expect((await c.send('POST', '/auth/step-up', { password: PASSWORD })).statusCode).toBe(200);
    const allowed = await c.send('PATCH', '/notifications', { telegram_live_orders: true });
    expect(allowed.statusCode).toBe(200);
    expect(await t.api.notifications.settings.liveOrdersAllowed(id)).toBe(true);
    // Turning it off is always welcome.
    await t.database.db.execute(
      sql`update step_ups set confirmed_until = now() - interval '1 second' where user_id = ${id}`,
    );
    expect((await c.send('PATCH', '/notifications', { telegram_live_orders: false })).statusCode).toBe(200);
  });

  it('leaves one consistent row after 30 parallel changes', async () => {
    const c = await signedIn('quin');
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        c.send('PATCH', '/notifications', {
          alert_threshold: 50 + 5 * (i % 10),
          ...(i % 3 === 0 ? { liquidation: false } : {}),
          ...(i % 2 === 0 ? { daily_pnl: true } : {}),
        }),
      ),
    );
    for (const res of answers) {
      expect(res.statusCode).toBe(200);
      NotificationSettings.parse(res.json());
    }
    const id = await userId(c);
    const rows = await t.database.db
      .select()
      .from(notificationSettings)
      .where(sql`user_id = ${id}`);
    expect(rows).toHaveLength(1);
    const final = (await state(c)).settings;
    // Every change of a field that no other change undid landed.
    expect(final).toMatchObject({ liquidation: false, daily_pnl: true, alerts: true, fills: true });
    expect(answers.map((r) => r.json<NotificationSettings>().alert_threshold)).toContain(
      final.alert_threshold,
    );
  });

  it('takes push subscriptions on https only (plain http only from the test double), one row per endpoint', async () => {
    const c = await signedIn('rhea');
    const sub = push.subscribe();
    for (const endpoint of ['http://push.example/push/1', 'ftp://push.example/x']) {
      const res = await c.send('POST', '/notifications/push', { endpoint, keys: sub.keys });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({
        detail: [{ loc: ['body', 'endpoint'], msg: PUSH_REFUSALS.notHttps, type: 'value_error' }],
      });
    }
    const bad = await c.send('POST', '/notifications/push', { endpoint: 'not a url', keys: sub.keys });
    expect(bad.statusCode).toBe(422);
    await subscribe(c);
    // The same browser again replaces its row.
    const again = await c.send('POST', '/notifications/push', { endpoint: sub.endpoint, keys: sub.keys });
    expect(again.statusCode).toBe(204);
    expect((await state(c)).push.subscriptions).toBe(2);
    expect((await c.send('DELETE', '/notifications/push', { endpoint: sub.endpoint })).statusCode).toBe(204);
    expect((await c.send('DELETE', '/notifications/push', { endpoint: sub.endpoint })).statusCode).toBe(404);
    expect((await state(c)).push.subscriptions).toBe(1);
  });

  it('sends a note the browser can decrypt: title, body, url and tag, with a TTL', async () => {
    const c = await signedIn('sami');
    const id = await userId(c);
    const [a, b] = [await subscribe(c), await subscribe(c)];
    await t.api.notifications.push.deliver({
      kind: 'fill',
      userId: id,
      title: "Rule 'BTC news' bought 0.002 BTC at 64,000",
      body: 'On paper, $128.00.',
      url: 'https://news.example/story',
      ref: 'decision:12',
    });
    for (const sub of [a, b]) {
      expect(payloadsOf(sub.id)).toEqual([
        {
          title: "Rule 'BTC news' bought 0.002 BTC at 64,000",
          body: 'On paper, $128.00.',
          url: 'https://news.example/story',
          tag: 'decision:12',
        },
      ]);
      expect(push.received.find((r) => r.id === sub.id)?.ttl).toBe('86400');
    }
    expect(push.refused).toEqual([]);
  });

  it('removes a subscription the push service calls gone (410, 404)', async () => {
    const c = await signedIn('tova');
    const id = await userId(c);
    const [gone, missing, kept] = [await subscribe(c), await subscribe(c), await subscribe(c)];
    push.answer(gone.id, 410);
    push.answer(missing.id, 404);
    await t.api.notifications.push.deliver({ kind: 'pnl', userId: id, title: 'Day', body: 'PnL' });
    const left = await t.database.db
      .select()
      .from(pushSubscriptions)
      .where(sql`user_id = ${id}`);
    expect(left.map((r) => r.endpoint)).toEqual([kept.endpoint]);
    expect(payloadsOf(kept.id)).toHaveLength(1);
    expect(await t.api.notifications.push.reaches(id)).toBe(true);
  });

  it('retries a busy (429) or failing (5xx) push service a few times, then gives up', async () => {
    const c = await signedIn('uma');
    const id = await userId(c);
    const [busy, down] = [await subscribe(c), await subscribe(c)];
    push.answer(busy.id, 429, 503);
    push.answer(down.id, 500, 500, 500, 500, 500);
    await t.api.notifications.push.deliver({ kind: 'alert', userId: id, title: 'News', body: 'x' });
    expect(push.attempts.filter((a) => a.id === busy.id).map((a) => a.status)).toEqual([429, 503, 201]);
    expect(payloadsOf(busy.id)).toHaveLength(1);
    expect(push.attempts.filter((a) => a.id === down.id).map((a) => a.status)).toEqual([500, 500, 500, 500]);
    // A failing service is not a gone subscription: it stays.
    expect((await state(c)).push.subscriptions).toBe(2);
  }, 30_000);

  it('alerts a subscribed user of a completed signal from the bus, once', async () => {
    const c = await signedIn('vera');
    const sub = await subscribe(c);
    await c.send('PATCH', '/notifications', { alert_threshold: 70 });
    await t.api.notifications.dispatcher.refresh();
    const signal = completedSignal({ id: freshSignalId(), assets: ['BTC'], impact: 75 });
    await t.app.bus.publish('signal.published', { rev: 1, signal });
    await t.app.bus.publish('signal.published', { rev: 2, signal });
    const [note] = await until(async () => {
      await t.api.notifications.dispatcher.idle();
      const got = payloadsOf(sub.id);
      return got.length > 0 ? got : undefined;
    });
    expect(note).toMatchObject({ title: signal.content, tag: `signal:${signal.id}` });
    expect(note?.body).toContain('Positive · impact 75');
    await t.api.notifications.dispatcher.idle();
    expect(payloadsOf(sub.id)).toHaveLength(1);
  });
  it('tells of a stop that fired on the exchange, and of a leg placed again, from the bus', async () => {
    const c = await signedIn('stella');
    const id = await userId(c);
    const sub = await subscribe(c);
    await t.api.notifications.dispatcher.refresh(id);
    await t.app.bus.publish('trading.protection', {
      userId: id,
      origin: 'elsewhere',
      symbol: 'BTC/USDT',
      event: 'fired',
      leg: 'stop_loss',
      text: 'The stop loss on BTC/USDT fired at 58800: the position is closed.',
    });
    await t.app.bus.publish('trading.protection', {
      userId: id,
      origin: 'elsewhere',
      symbol: 'ETH/USDT',
      event: 'placed_again',
      leg: 'take_profit',
      text: 'The take profit on ETH/USDT vanished from the exchange (canceled) and was placed again.',
    });
    const notes = await until(async () => {
      await t.api.notifications.dispatcher.idle();
      const got = payloadsOf(sub.id);
      return got.length >= 2 ? got : undefined;
    });
    expect(notes.map((n) => n.title).sort()).toEqual([
      'The stop loss on BTC/USDT fired at 58800: the position is closed.',
      'The take profit on ETH/USDT vanished from the exchange (canceled) and was placed again.',
    ]);
    expect(notes.find((n) => n.title?.startsWith('The stop loss'))?.tag).toBe(
      'protection:BTC/USDT:stop_loss',
    );
  });

  it("tells of a rule's fill from the bus, and reads the day's PnL from the user's fills", async () => {
    const c = await signedIn('walt');
    const id = await userId(c);
    const sub = await subscribe(c);
    await t.api.notifications.dispatcher.refresh(id);
    await t.app.bus.publish('rules.decided', {
      userId: id,
      event: 'fired',
      headline: 'ETF approved',
      decision: {
        id: '41',
        rule_id: 'r',
        rule_name: 'ETF news',
        rule_version: 1,
        signal_id: '9',
        asset: 'BTC',
        symbol: 'BTCUSDT',
        side: 'long',
        amount_usd: 100,
        outcome: 'fired',
        reason: null,
        detail: null,
        engine: 'local',
        sentiment: 'positive',
        impact: 90,
        price: 50_000,
        order_id: 'o',
        quantity: 0.002,
        notional: 100,
        latency_ms: 5,
        exit: null,
        decided_at: new Date().toISOString(),
        account: 'paper',
        account_mode: 'paper',
        account_venue: 'paper',
        fee: 0.04,
        arrival_price: 50_000,
        twin: null,
        exit_pnl: null,
      },
    });
    const [fill] = await until(async () => {
      await t.api.notifications.dispatcher.idle();
      const got = payloadsOf(sub.id);
      return got.length > 0 ? got : undefined;
    });
    expect(fill).toMatchObject({
      title: "Rule 'ETF news' bought 0.002 BTC at 50,000",
      body: 'On paper, $100.00, fee $0.04.\nETF approved',
      tag: 'decision:41',
    });

    const repo = new NotificationsRepo(t.database.db);
    // No rule of anyone fired on that signal: a retraction of it concerns nobody's trades.
    expect(await repo.tradersOf(9)).toEqual([]);
    const day = { from: new Date(Date.now() - 3_600_000), to: new Date(Date.now() + 3_600_000) };
    expect(await repo.pnlBetween(id, day.from, day.to)).toEqual({ pnl: 0, fees: 0, fills: 0 });
    const auth = { authorization: `Bearer ${c.token}` };
    for (const side of ['long', 'short'] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/orders',
        headers: auth,
        payload: { type: 'market', symbol: 'BTC/USDT', side, amount: 200 },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    const result = await repo.pnlBetween(id, day.from, day.to);
    expect(result.fills).toBe(2);
    expect(result.fees).toBeGreaterThan(0);
    expect(Number.isFinite(result.pnl)).toBe(true);
    expect(await repo.pnlBetween(id, day.to, new Date(day.to.getTime() + 1000))).toMatchObject({ fills: 0 });
  });
});
