import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_DETAILS, Me } from '../../src/contracts/auth';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets } from '../helpers/db';
import { AuthClient } from './auth.support';

describe.each(dbTargets())('sign-up, login, refresh and logout on $name', (target) => {
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

  it('refuses a taken email or username, whatever the case, with 409 and a clear detail', async () => {
    const email = await client().signup('carol', 'correct horse', 'ALICE@EXAMPLE.COM');
    expect(email.statusCode).toBe(409);
    expect(email.json()).toEqual({ detail: AUTH_DETAILS.emailTaken });
    const name = await client().signup('aLiCe', 'correct horse', 'other@example.com');
    expect(name.statusCode).toBe(409);
    expect(name.json()).toEqual({ detail: AUTH_DETAILS.usernameTaken });
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
