import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_DETAILS, Me } from '../../src/contracts/auth';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { AuthClient } from './auth.support';

describe.each(dbTargets())('sign-up, login, refresh and logout on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  const client = () => new AuthClient(t.app);

  beforeAll(async () => {
    t = await startTestApp(target, { ADMIN_EMAILS: 'boss@example.com' });
  });
  afterAll(() => t.close());

  it('makes the first account an admin, later ones users, and anyone in ADMIN_EMAILS an admin', async () => {
    const first = await client().signup('Alice');
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({ username: 'Alice', email: 'Alice@example.com', role: 'admin' });
    expect((await client().signup('bob')).json()).toMatchObject({ role: 'user' });
    expect((await client().signup('boss', 'correct horse', 'BOSS@example.com')).json()).toMatchObject({
      role: 'admin',
    });
  });

  it('answers a taken email as a new one, makes nothing and mails its owner; a taken username is a 409', async () => {
    const fresh = await client().signup('dora', 'correct horse', 'dora@example.com');
    const taken = await client().signup('carol', 'correct horse', 'ALICE@EXAMPLE.COM');
    expect(taken.statusCode).toBe(fresh.statusCode);
    expect(Object.keys(taken.json()).sort()).toEqual(Object.keys(fresh.json()).sort());
    expect(taken.json()).toMatchObject({ username: 'carol', email: 'ALICE@EXAMPLE.COM', role: 'user' });
    expect(taken.json<{ id: string }>().id).toMatch(/^[0-9a-f-]{36}$/);
    // No account was made: its name is free and its password signs nobody in.
    expect((await client().login('carol')).statusCode).toBe(401);
    // The owner hears of it, once an hour however often it is tried.
    const notices = async () => {
      const folder = path.join(t.dataDir, 'outbox');
      const files = await readdir(folder).catch(() => []);
      const texts = await Promise.all(files.map((f) => readFile(path.join(folder, f), 'utf8')));
      return texts.filter((m) => m.includes('Someone tried to sign up with your address'));
    };
    await expect.poll(async () => (await notices()).length).toBe(1);
    expect((await notices())[0]).toContain('To: Alice@example.com');
    expect((await client().signup('carl', 'correct horse', 'alice@example.com')).statusCode).toBe(201);
    await new Promise((r) => setTimeout(r, 200));
    expect(await notices()).toHaveLength(1);

    const name = await client().signup('aLiCe', 'correct horse', 'other@example.com');
    expect(name.statusCode).toBe(409);
    expect(name.json()).toEqual({ detail: AUTH_DETAILS.usernameTaken });
  });

  it('makes one account of sign-ups racing with one new address, and answers them all alike', async () => {
    // As many at once as the sign-up limit lets one address try in a minute.
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => client().signup(`racer${i}`, 'correct horse', 'race@example.com')),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array.from({ length: 10 }, () => 201));
    const made = await Promise.all(
      answers.map(async (_, i) => (await client().login(`racer${i}`)).statusCode === 200),
    );
    expect(made.filter(Boolean)).toHaveLength(1);
  });

  it('answers 422 for a short password, a bad email and missing fields', async () => {
    const res = await client().send('POST', '/auth/signup', {
      email: 'nope',
      username: 'dave',
      password: 'short',
    });
    expect(res.statusCode).toBe(422);
    const issues = res.json<{ detail: { loc: string[]; msg: string }[] }>().detail;
    expect(issues.map((i) => i.loc)).toEqual([
      ['body', 'email'],
      ['body', 'password'],
    ]);
    expect(issues[1]?.msg).toBe('Password must be at least 8 characters long.');
    expect((await client().send('POST', '/auth/signup', {})).statusCode).toBe(422);
  });

  it('logs in by username or email and sets an httpOnly, SameSite=Strict refresh cookie on /api/auth', async () => {
    const c = client();
    const res = await c.login('alice');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ token_type: 'bearer' });
    const cookie = res.cookies.find((k) => k.name === 'sc_refresh');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/auth' });
    expect(cookie?.secure).toBeFalsy();
    expect(cookie?.expires).toBeUndefined();
    expect(res.cookies.find((k) => k.name === 'sc_device')).toBeUndefined();

    const me = await c.send('GET', '/users/me');
    expect(me.statusCode).toBe(200);
    expect(Me.parse(me.json())).toMatchObject({
      username: 'Alice',
      email: 'Alice@example.com',
      role: 'admin',
      subscription: { status: 'inactive' },
      is_two_factor_enabled: false,
    });
    expect((await client().login('alice@EXAMPLE.com')).statusCode).toBe(200);
  });

  it('never says which of user or password was wrong', async () => {
    const wrongPassword = await client().login('alice', 'wrong password');
    const noSuchUser = await client().login('nobody', 'correct horse');
    expect(wrongPassword.statusCode).toBe(401);
    expect(noSuchUser.statusCode).toBe(401);
    expect(wrongPassword.json()).toEqual({ detail: AUTH_DETAILS.badCredentials });
    expect(noSuchUser.json()).toEqual(wrongPassword.json());
  });

  it('verifies a valid access token and refuses a missing or forged one', async () => {
    const c = client();
    await c.login('bob');
    const ok = await c.send('GET', '/auth/verify');
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ valid: true, role: 'user' });
    expect((await c.send('GET', '/auth/verify', undefined, { bearer: null })).statusCode).toBe(401);
    const forged = `${c.token?.slice(0, -4) ?? ''}AAAA`;
    expect((await c.send('GET', '/auth/verify', undefined, { bearer: forged })).statusCode).toBe(401);
    expect((await c.send('GET', '/users/me', undefined, { bearer: null })).json()).toEqual({
      detail: 'Not authenticated',
    });
  });

  it('answers 204 to a refresh without a cookie and 401 to an unknown one', async () => {
    const c = client();
    const none = await c.send('POST', '/auth/refresh');
    expect(none.statusCode).toBe(204);
    expect(none.body).toBe('');
    c.cookies.set('sc_refresh', 'made-up');
    const bad = await c.send('POST', '/auth/refresh');
    expect(bad.statusCode).toBe(401);
    expect(bad.json()).toEqual({ detail: AUTH_DETAILS.invalidRefresh });
    expect(c.cookies.has('sc_refresh')).toBe(false);
  });

  it('rotates the refresh token on every use', async () => {
    const c = client();
    await c.login('bob');
    const first = c.cookies.get('sc_refresh');
    const res = await c.refresh();
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ token_type: 'bearer' });
    expect(c.cookies.get('sc_refresh')).not.toBe(first);
    expect((await c.send('GET', '/users/me')).json()).toMatchObject({ username: 'bob' });
    expect((await c.refresh()).statusCode).toBe(200);
  });

  it('lets a second tab refresh with the token the first tab just rotated (reuse after the grace: auth-rotation)', async () => {
    const first = client();
    await first.login('bob');
    const shared = first.cookies.get('sc_refresh') ?? '';
    expect((await first.refresh()).statusCode).toBe(200);
    const second = client();
    second.cookies.set('sc_refresh', shared);
    expect((await second.send('POST', '/auth/refresh')).statusCode).toBe(200);
    expect(second.cookies.get('sc_refresh')).not.toBe(shared);
    expect((await first.refresh()).statusCode).toBe(200);
  });

  it('ends the access token of a sign-in at its logout, and leaves the other sign-ins alone', async () => {
    const phone = client();
    await phone.login('bob');
    const laptop = client();
    await laptop.login('bob');
    expect((await phone.send('GET', '/users/me')).statusCode).toBe(200);
    expect((await phone.send('POST', '/auth/logout')).statusCode).toBe(200);
    // Within its 15 minutes, the token of the logged-out sign-in no longer works.
    expect((await phone.send('GET', '/users/me')).statusCode).toBe(401);
    expect((await laptop.send('GET', '/users/me')).statusCode).toBe(200);
  });

  it('logs out: the refresh token is revoked and the cookies are cleared', async () => {
    const c = client();
    await c.login('bob');
    const token = c.cookies.get('sc_refresh') ?? '';
    const res = await c.send('POST', '/auth/logout');
    expect(res.statusCode).toBe(200);
    expect(res.cookies.find((k) => k.name === 'sc_refresh')?.value).toBe('');
    const replay = client();
    replay.cookies.set('sc_refresh', token);
    expect((await replay.send('POST', '/auth/refresh')).statusCode).toBe(401);
  });

  it('limits logins per address and per account with a 429 that says when to retry', async () => {
    await client().signup('erin');
    const fromOne = client();
    // Five wrong passwords are answered; from the sixth on, each failure makes the account wait longer.
    for (let i = 0; i < 10; i += 1)
      expect((await fromOne.login('erin', 'wrong password')).statusCode).toBe(i <= 5 ? 401 : 429);
    const limited = await fromOne.login('someone-else', 'wrong password');
    expect(limited.statusCode).toBe(429);
    expect(limited.json<{ detail: string }>().detail).toMatch(
      /^Too many requests\. Please try again in \d+ s\.$/,
    );
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);

    // The account is limited too: a new address gets no more tries against erin.
    const elsewhere = await client().login('erin');
    expect(elsewhere.statusCode).toBe(429);
    expect((await client().login('bob')).statusCode).toBe(200);
  });
});
