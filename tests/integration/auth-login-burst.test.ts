import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_FAILURES } from '../../server/modules/auth/login-throttle';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { retryText } from '../../server/plugins/rate-limit';
import { AuthClient, enableTwoFactor, totpCode } from './auth.support';

/**
 * The back-off is judged before the slow password hash: parallel guesses are counted one by one as they
 * arrive, not all against the count from before any of them was checked.
 */
describe.each(dbTargets())('login back-off under parallel guesses on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  const client = () => new AuthClient(t.app);
  beforeAll(async () => {
    t = await startTestApp(target);
  });
  afterAll(() => t.close());

  it('30 guesses at once from 30 addresses, username and e-mail alternating, do not get in past the limit', async () => {
    await client().signup('vera', 'correct horse battery', 'vera@example.com');
    const guesses = Array.from({ length: 30 }, (_, i) => ({
      login: i % 2 === 0 ? 'vera' : 'Vera@example.com',
      password: i === 29 ? 'correct horse battery' : `wrong guess ${i}`,
    }));
    const answers = await Promise.all(guesses.map((g) => client().login(g.login, g.password)));
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses).not.toContain(200);
    // The free failures and the one that starts the wait were checked; every other guess waited.
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(FREE_FAILURES + 1);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(30 - FREE_FAILURES - 1);
  });

  it('lets the owner of a 2FA account in at once with the password and a fresh code while guesses make it wait', async () => {
    const PASSWORD = 'correct horse battery';
    const owner = client();
    await owner.signup('yuri', PASSWORD, 'yuri@example.com');
    await owner.login('yuri', PASSWORD);
    const { secret } = await enableTwoFactor(owner);
    // The code of the next time step: the current one was spent turning 2FA on.
    const fresh = () => totpCode(secret, Date.now() + 30_000);
    const stale = totpCode(secret, Date.now() + 20 * 60_000);
    const withCode = (password: string, code: string) =>
      client().send(
        'POST',
        '/auth/token',
        { username: 'yuri', password, code, device_info: { browser: 'Chrome', os: 'Linux' } },
        { form: true },
      );
    const retryAfter = (res: { headers: Record<string, unknown> }) => Number(res.headers['retry-after']);

    const burst = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        client().login(i % 2 === 0 ? 'yuri' : 'yuri@example.com', `guess ${i}`),
      ),
    );
    expect(burst.map((a) => a.statusCode)).toContain(429);
    // Misses with a code count like any other: two more make the wait long enough for the steps below.
    expect((await withCode('guess with a code', stale)).statusCode).not.toBe(200);
    const waiting = await withCode('another guess with a code', stale);
    expect(waiting.statusCode).toBe(429);

    // The password alone waits (for the account's request limit too, after so many tries).
    expect((await client().login('yuri', PASSWORD)).statusCode).toBe(429);
    // The password with a wrong code: the same wait, and counted (the wait doubles).
    const wrongCode = await withCode(PASSWORD, stale);
    expect(wrongCode.statusCode).toBe(429);
    expect(wrongCode.json()).toEqual({ detail: retryText(retryAfter(wrongCode)) });
    expect(retryAfter(wrongCode)).toBeGreaterThan(retryAfter(waiting));
    // A wrong password with the right code: the same answer; which part was wrong is not said.
    const wrongPassword = await withCode('not the password', fresh());
    expect(wrongPassword.statusCode).toBe(429);
    expect(wrongPassword.json()).toEqual({ detail: retryText(retryAfter(wrongPassword)) });
    expect(retryAfter(wrongPassword)).toBeGreaterThan(retryAfter(wrongCode));

    // Both right: signed in at once, without the code step.
    const signedIn = await withCode(PASSWORD, fresh());
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.json()).toEqual({ access_token: expect.any(String), token_type: 'bearer' });
  });

  it('a code gets no account without 2FA past the wait', async () => {
    const owner = client();
    await owner.signup('zeno', 'correct horse battery', 'zeno@example.com');
    const login = (password: string) =>
      client().send('POST', '/auth/token', { username: 'zeno', password, code: '123456' }, { form: true });
    for (let i = 0; i < 8; i += 1) expect((await login(`guess ${i}`)).statusCode).not.toBe(200);
    expect((await login('correct horse battery')).statusCode).toBe(429);
  });

  it("does not delay the owner's sign-in from a device the account remembered", async () => {
    const owner = client();
    await owner.signup('walt', 'correct horse battery', 'walt@example.com');
    expect((await owner.login('walt', 'correct horse battery', true)).statusCode).toBe(200);
    const device = owner.cookies.get('sc_device');
    expect(device).toBeDefined();
    for (let i = 0; i < 8; i += 1) await client().login('walt', 'wrong password');
    expect((await client().login('walt', 'correct horse battery')).statusCode).toBe(429);
    // The owner's browser, signed out of its session but still holding the device cookie.
    const back = client();
    back.cookies.set('sc_device', device ?? '');
    expect((await back.login('walt', 'correct horse battery')).statusCode).toBe(200);
    // A device cookie of another account buys no exemption.
    const other = client();
    await other.signup('xena', 'correct horse battery', 'xena@example.com');
    await other.login('xena', 'correct horse battery', true);
    for (let i = 0; i < 8; i += 1) await client().login('walt', 'wrong password');
    const borrowed = client();
    borrowed.cookies.set('sc_device', other.cookies.get('sc_device') ?? '');
    expect((await borrowed.login('walt', 'correct horse battery')).statusCode).toBe(429);
  });
});
