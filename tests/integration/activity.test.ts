import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityList } from '../../src/contracts/activity';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { AuthClient, decodeQuotedPrintable, enableTwoFactor } from './auth.support';

describe.each(dbTargets())('account activity on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(target);
  });
  afterAll(() => t?.close());

  const activity = async (c: AuthClient) => {
    const res = await c.send('GET', '/account/activity');
    expect(res.statusCode, res.body).toBe(200);
    return ActivityList.parse(res.json());
  };
  const mails = async () => {
    const dir = path.join(t.dataDir, 'outbox');
    const files = (await readdir(dir).catch(() => [])).sort();
    return Promise.all(
      files.map(async (f) => decodeQuotedPrintable(await readFile(path.join(dir, f), 'utf8'))),
    );
  };
  const loginFrom = (c: AuthClient, username: string, password: string, browser: string, os: string) =>
    c.send(
      'POST',
      '/auth/token',
      { username, password, device_info: JSON.stringify({ browser, os, place: 'Lisbon' }) },
      { form: true },
    );

  it('lists sign-ins with method and device, failed attempts and security changes, newest first', async () => {
    const c = new AuthClient(t.app);
    await c.signup('ada', 'correct horse battery');
    await c.login('ada', 'wrong password here');
    await c.login('ada', 'correct horse battery');
    await c.send('POST', '/auth/change-password', {
      current_password: 'correct horse battery',
      new_password: 'another horse battery',
    });
    await enableTwoFactor(c);
    const entries = await activity(c);
    expect(entries.map((e) => e.kind)).toEqual([
      'two_factor_enabled',
      'password_changed',
      'sign_in',
      'sign_in_failed',
    ]);
    expect(entries[2]).toMatchObject({
      text: 'Signed in with a password',
      device: 'Chrome on Linux',
    });
    expect(entries[3]?.text).toBe('A sign-in failed: wrong password');
    expect(new Date(entries[0]?.at ?? 0).getTime()).toBeGreaterThanOrEqual(
      new Date(entries[3]?.at ?? 0).getTime(),
    );
    // Nobody else's: a second account sees only its own lines.
    const other = new AuthClient(t.app);
    await other.signup('bea', 'correct horse battery');
    await other.login('bea', 'correct horse battery');
    expect((await activity(other)).map((e) => e.kind)).toEqual(['sign_in']);
    expect((await t.app.inject('/api/account/activity')).statusCode).toBe(401);
    // Only plain decimals count as a number: a hex limit is refused, not read as 16.
    expect((await other.send('GET', '/account/activity?limit=0x10')).statusCode).toBe(422);
    expect((await other.send('GET', '/account/activity?limit=1')).json()).toHaveLength(1);
  });

  it('mails the owner about a sign-in from a device never seen before, not about a known one', async () => {
    const c = new AuthClient(t.app);
    await c.signup('cyril', 'correct horse battery', 'cyril@example.com');
    await loginFrom(c, 'cyril', 'correct horse battery', 'Chrome', 'Linux');
    await loginFrom(c, 'cyril', 'correct horse battery', 'Chrome', 'Linux');
    expect((await mails()).filter((m) => m.includes('To: cyril@example.com'))).toEqual([]);
    const phone = new AuthClient(t.app);
    const res = await loginFrom(phone, 'cyril', 'correct horse battery', 'Safari', 'iOS');
    expect(res.statusCode).toBe(200);
    phone.token = res.json<{ access_token: string }>().access_token;
    await expect
      .poll(async () => (await mails()).filter((m) => m.includes('To: cyril@example.com')).length)
      .toBe(1);
    const [mail] = (await mails()).filter((m) => m.includes('To: cyril@example.com'));
    expect(mail).toContain('Subject: New sign-in to your Signal Console account');
    expect(mail).toContain('Signed in with a password from Safari on iOS near Lisbon');
    const [latest] = await activity(phone);
    expect(latest).toMatchObject({ kind: 'sign_in', device: 'Safari on iOS', place: 'Lisbon' });
  });

  it('records the kill switch with its state', async () => {
    const c = new AuthClient(t.app);
    await c.signup('dee', 'correct horse battery');
    await c.login('dee', 'correct horse battery');
    const on = await c.send('POST', '/rules/kill-switch', { on: true });
    expect(on.statusCode, on.body).toBe(200);
    const [latest] = await activity(c);
    expect(latest).toMatchObject({ kind: 'kill_switch', text: 'Kill switch on: automated trading stopped' });
  });
});
