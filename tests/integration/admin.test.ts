import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminSources, AdminUser, AuditEntry, SubscriptionView } from '../../src/contracts/billing';
import { AuthClient } from './auth.support';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';

type Auth = { authorization: string };

describe.each(dbTargets())('admin panel API on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let admin: Auth;
  let bob: Auth;
  let bobId = '';

  beforeAll(async () => {
    t = await startTestApp(target, {
      NEWS_SOURCES: 'webhook',
      INGEST_TOKEN: 'admin-test-ingest-token',
      PREMIUM_NEWS_SOURCES: 'webhook',
    });
    admin = await signUpAndLogIn(t.app, 'root'); // the first account is the admin
    bob = await signUpAndLogIn(t.app, 'bob');
    bobId = ((await t.app.inject({ url: '/api/users/me', headers: bob })).json() as { id: string }).id;
  });
  afterAll(() => t.close());

  const post = (auth: Auth, url: string, payload: object) =>
    t.app.inject({ method: 'POST', url, headers: auth, payload });

  it('refuses non-admins with 403 and anonymous callers with 401', async () => {
    for (const url of ['/api/admin/users', '/api/admin/audit', '/api/admin/sources']) {
      expect((await t.app.inject({ url, headers: bob })).statusCode, url).toBe(403);
      expect((await t.app.inject({ url })).statusCode, url).toBe(401);
    }
    expect((await post(bob, `/api/admin/users/${bobId}/premium`, { premium: true })).statusCode).toBe(403);
  });

  it('lists users and grants and revokes Premium, with an audit entry each', async () => {
    const list = AdminUser.array().parse(
      (await t.app.inject({ url: '/api/admin/users', headers: admin })).json(),
    );
    expect(list.map((u) => u.username).sort()).toEqual(['bob', 'root']);
    const granted = await post(admin, `/api/admin/users/${bobId}/premium`, { premium: true, days: 10 });
    expect(granted.statusCode).toBe(200);
    const me = SubscriptionView.parse(
      (await t.app.inject({ url: '/api/subscriptions/me', headers: bob })).json(),
    );
    expect(me).toMatchObject({ status: 'active', provider: 'admin' });
    // The account itself reads the same status (docs/product.md §3 User.subscription), which the header goes by.
    const account = (await t.app.inject({ url: '/api/users/me', headers: bob })).json() as {
      subscription: { status: string };
    };
    expect(account.subscription).toEqual({ status: 'active' });
    await post(admin, `/api/admin/users/${bobId}/premium`, { premium: false });
    const after = SubscriptionView.parse(
      (await t.app.inject({ url: '/api/subscriptions/me', headers: bob })).json(),
    );
    expect(after.status).toBe('canceled');
    const accountAfter = (await t.app.inject({ url: '/api/users/me', headers: bob })).json() as {
      subscription: { status: string };
    };
    expect(accountAfter.subscription).toEqual({ status: 'canceled' });
    const log = AuditEntry.array().parse(
      (await t.app.inject({ url: '/api/admin/audit', headers: admin })).json(),
    );
    expect(log.map((e) => e.action)).toEqual(['premium.revoke', 'premium.grant']);
    expect(log[1]).toMatchObject({ target_user_id: bobId, detail: { days: 10 } });
    expect((await post(admin, `/api/admin/users/${bobId}/premium`, { premium: 'yes' })).statusCode).toBe(422);
  });

  it('a disabled user can neither use a token nor sign in, until enabled again', async () => {
    expect((await post(admin, `/api/admin/users/${bobId}/disable`, { disabled: true })).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/api/users/me', headers: bob })).statusCode).toBe(401);
    const client = new AuthClient(t.app);
    await client.login('bob', 'correct horse battery');
    expect(client.token).toBeNull();
    await post(admin, `/api/admin/users/${bobId}/disable`, { disabled: false });
    expect((await t.app.inject({ url: '/api/users/me', headers: bob })).statusCode).toBe(200);
    const log = AuditEntry.array().parse(
      (await t.app.inject({ url: '/api/admin/audit', headers: admin })).json(),
    );
    expect(log.slice(0, 2).map((e) => e.action)).toEqual(['user.enable', 'user.disable']);
  });

  it('shows source health and how many signals each source brought in', async () => {
    const read = async () => {
      const res = await t.app.inject({ url: '/api/admin/sources', headers: admin });
      expect(res.statusCode).toBe(200);
      return AdminSources.parse(res.json());
    };
    const before = await read();
    expect(before.health.status).toBe('ok');
    expect(before.ingestion).toEqual([{ source: 'webhook', total: 0, last_24h: 0, premium: true }]);
    const ingest = await t.app.inject({
      method: 'POST',
      url: '/api/signals/ingest',
      headers: { authorization: 'Bearer admin-test-ingest-token' },
      payload: [
        { content: 'Binance will list FOO perpetual futures', source_name: 'Desk' },
        { content: 'SEC delays the decision on a spot ETH ETF', source_name: 'Desk' },
      ],
    });
    expect(ingest.statusCode).toBe(202);
    const after = await read();
    expect(after.ingestion).toEqual([{ source: 'webhook', total: 2, last_24h: 2, premium: true }]);
  });
});
