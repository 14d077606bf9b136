import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STEP_UP_DETAILS } from '../../src/contracts/auth';
import { ActivityList } from '../../src/contracts/activity';
import { pushSubscriptions } from '../../server/db/schema';
import type { ResolvedAddress } from '../../server/modules/news/proxy/fetch-image';
import { MAX_PUSH_SUBSCRIPTIONS } from '../../server/modules/notifications/notifications.service';
import { PUSH_REFUSALS } from '../../server/modules/notifications/push/endpoint-policy';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { startPushDouble, type PushDouble } from '../helpers/push-double';
import { signedInClient, userIdOf, type AuthClient } from './auth.support';

const PASSWORD = 'correct horse battery';

/** A loopback HTTP server that counts requests and answers each with `answer`. */
async function counter(answer: (res: ServerResponse) => void) {
  let hits = 0;
  const server: Server = createServer((req, res) => {
    hits += 1;
    req.resume();
    answer(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get hits() {
      return hits;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Web Push endpoints are URLs a browser (or anyone with a session) hands over: the server must never be
 * made to connect into its own network with them. Every name here resolves through the test's own table
 * to a private address or not at all, and every connection the app makes is checked to be loopback, so
 * nothing in this file can reach past this machine.
 */
describe.each(dbTargets())('Web Push endpoints on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let push: PushDouble;
  let internal: Awaited<ReturnType<typeof counter>>;
  let redirector: Awaited<ReturnType<typeof counter>>;
  const connects: string[] = [];
  const names: Record<string, string[]> = {};
  const asked: string[] = [];

  beforeAll(async () => {
    push = await startPushDouble();
    // A plain-http service inside the network, and a "push service" that redirects to it.
    internal = await counter((res) => res.writeHead(410).end());
    redirector = await counter((res) => res.writeHead(302, { location: `${internal.url}/admin` }).end());
    t = await startTestApp(
      target,
      // No replayed headlines: the only pushes are the ones the tests send.
      { NEWS_SOURCES: 'webhook' },
      {
        push: {
          testOrigins: [push.url, redirector.url],
          resolve: async (host): Promise<ResolvedAddress[]> => {
            asked.push(host);
            return (names[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
          },
          onConnect: (address) => {
            connects.push(address);
            if (address !== '127.0.0.1') throw new Error(`a test connected to ${address}`);
          },
        },
      },
    );
  });
  afterAll(async () => {
    await t?.close();
    await push?.close();
    await internal?.close();
    await redirector?.close();
  });

  const signedIn = (name: string) => signedInClient(t.app, name, PASSWORD);
  const keys = () => push.subscribe().keys;
  const rowsOf = async (userId: string) =>
    t.database.db
      .select()
      .from(pushSubscriptions)
      .where(sql`user_id = ${userId}`);
  const activity = async (c: AuthClient) =>
    ActivityList.parse((await c.send('GET', '/account/activity')).json());

  it('refuses loopback, private, link-local and metadata endpoints with a 422, and connects to none of them', async () => {
    const c = await signedIn('ssrf-subscribe');
    const id = await userIdOf(c);
    // A push service's own name answering a private address (a poisoned or rebound DNS answer).
    names['fcm.googleapis.com'] = ['10.20.30.40'];
    names['updates.push.services.mozilla.com'] = ['::ffff:169.254.169.254'];
    const refused: [string, string][] = [
      ['https://10.0.0.1/push/1', PUSH_REFUSALS.notService('10.0.0.1')],
      ['https://169.254.169.254/latest/meta-data/', PUSH_REFUSALS.notService('169.254.169.254')],
      ['https://192.168.1.20/push/1', PUSH_REFUSALS.notService('192.168.1.20')],
      ['https://[::1]/push/1', PUSH_REFUSALS.notService('::1')],
      ['https://[::ffff:127.0.0.1]/push/1', PUSH_REFUSALS.notService('::ffff:7f00:1')],
      ['https://localhost/push/1', PUSH_REFUSALS.notService('localhost')],
      ['http://127.0.0.1:6379/push/1', PUSH_REFUSALS.notHttps],
      ['https://fcm.googleapis.com:8443/fcm/send/x', PUSH_REFUSALS.port],
      ['https://fcm.googleapis.com/fcm/send/x', PUSH_REFUSALS.privateAddress],
      ['https://updates.push.services.mozilla.com/wpush/v2/x', PUSH_REFUSALS.privateAddress],
      ['https://push.services.mozilla.com/wpush/v2/x', PUSH_REFUSALS.unresolved('push.services.mozilla.com')],
    ];
    for (const [endpoint, msg] of refused) {
      const res = await c.send('POST', '/notifications/push', { endpoint, keys: keys() });
      expect(res.statusCode, endpoint).toBe(422);
      expect(res.json(), endpoint).toEqual({
        detail: [{ loc: ['body', 'endpoint'], msg, type: 'value_error' }],
      });
    }
    expect(await rowsOf(id)).toEqual([]);
    expect(connects).toEqual([]);
    // Only the allowed push services' names were looked up; nothing else was even resolved.
    expect([...new Set(asked)].sort()).toEqual([
      'fcm.googleapis.com',
      'push.services.mozilla.com',
      'updates.push.services.mozilla.com',
    ]);
  });

  it('checks an endpoint again before every push, connects only to the checked address, and follows no redirect', async () => {
    const c = await signedIn('ssrf-send');
    const id = await userIdOf(c);
    // Rows made before subscribing was checked, or whose name has since moved to a private address.
    names['fcm.googleapis.com'] = ['10.1.1.1'];
    await t.database.db.insert(pushSubscriptions).values([
      { userId: id, endpoint: 'https://169.254.169.254/latest/meta-data/x', ...keys() },
      { userId: id, endpoint: 'http://10.0.0.1:8080/push/y', ...keys() },
      { userId: id, endpoint: 'https://fcm.googleapis.com/fcm/send/rebound', ...keys() },
    ]);
    await t.api.notifications.push.deliver({ kind: 'alert', userId: id, title: 'News', body: 'x' });
    expect(connects).toEqual([]);
    // An endpoint that can never be taken is deleted; a name that resolved badly this time is kept.
    expect((await rowsOf(id)).map((r) => r.endpoint)).toEqual([
      'https://fcm.googleapis.com/fcm/send/rebound',
    ]);

    // A push service that answers 302 to a plain-http service inside: the redirect is not followed.
    const res = await c.send('POST', '/notifications/push', {
      endpoint: `${redirector.url}/push/redirects`,
      keys: keys(),
    });
    expect(res.statusCode, res.body).toBe(204);
    await t.api.notifications.push.deliver({ kind: 'alert', userId: id, title: 'News', body: 'y' });
    expect(redirector.hits).toBe(1);
    expect(internal.hits).toBe(0);
    expect(connects).toEqual(['127.0.0.1']);
  });

  it('needs a sign-in confirmed in the last minutes to subscribe, and logs each change to the activity', async () => {
    const c = await signedIn('push-step-up');
    const id = await userIdOf(c);
    await t.database.db.execute(
      sql`update step_ups set confirmed_until = now() - interval '1 second' where user_id = ${id}`,
    );
    const sub = push.subscribe();
    const refused = await c.send('POST', '/notifications/push', { endpoint: sub.endpoint, keys: sub.keys });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ detail: STEP_UP_DETAILS.required, code: 'step_up_required' });
    expect(await rowsOf(id)).toEqual([]);

    expect((await c.send('POST', '/auth/step-up', { password: PASSWORD })).statusCode).toBe(200);
    const ok = await c.send('POST', '/notifications/push', { endpoint: sub.endpoint, keys: sub.keys });
    expect(ok.statusCode, ok.body).toBe(204);
    const host = new URL(push.url).host;
    expect((await activity(c)).find((e) => e.kind === 'push_subscribed')?.text).toBe(
      `Web Push turned on for a browser (${host})`,
    );
    // Turning it off needs no confirmation, and is logged too.
    await t.database.db.execute(
      sql`update step_ups set confirmed_until = now() - interval '1 second' where user_id = ${id}`,
    );
    expect((await c.send('DELETE', '/notifications/push', { endpoint: sub.endpoint })).statusCode).toBe(204);
    expect((await activity(c)).map((e) => e.kind)).toEqual(
      expect.arrayContaining(['push_subscribed', 'push_unsubscribed']),
    );
  });

  it(`keeps at most ${MAX_PUSH_SUBSCRIPTIONS} browsers per user: 30 at once leave ${MAX_PUSH_SUBSCRIPTIONS}, and the oldest give way`, async () => {
    const c = await signedIn('push-many');
    const id = await userIdOf(c);
    const subs = Array.from({ length: 30 }, () => push.subscribe());
    const answers = await Promise.all(
      subs.map((s) => c.send('POST', '/notifications/push', { endpoint: s.endpoint, keys: s.keys })),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array.from({ length: 30 }, () => 204));
    expect(await rowsOf(id)).toHaveLength(MAX_PUSH_SUBSCRIPTIONS);

    // One more: the oldest of the ten gives way, the newest stays.
    const kept = await rowsOf(id);
    const oldest = [...kept].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())[0]!;
    const next = push.subscribe();
    expect(
      (await c.send('POST', '/notifications/push', { endpoint: next.endpoint, keys: next.keys })).statusCode,
    ).toBe(204);
    const after = (await rowsOf(id)).map((r) => r.endpoint);
    expect(after).toHaveLength(MAX_PUSH_SUBSCRIPTIONS);
    expect(after).toContain(next.endpoint);
    expect(after).not.toContain(oldest.endpoint);
    // A note goes to the ten it kept, and to nothing else.
    const before = push.attempts.length;
    await t.api.notifications.push.deliver({ kind: 'alert', userId: id, title: 'Ten', body: 'z' });
    expect(push.attempts.length - before).toBe(MAX_PUSH_SUBSCRIPTIONS);
  });
});
