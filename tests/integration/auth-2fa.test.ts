import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_DETAILS } from '../../src/contracts/auth';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { AuthClient, enableTwoFactor, totpCode } from './auth.support';

const NEXT_STEP = 30_000;

describe.each(dbTargets())('two-factor login on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  const client = () => new AuthClient(t.app);

  /** Signs up and logs in a new user. */
  const newUser = async (name: string) => {
    await client().signup(name);
    const c = client();
    await c.login(name);
    return c;
  };

  beforeAll(async () => {
    t = await startTestApp(target);
  });
  afterAll(() => t.close());

  it('sets up with a secret, an otpauth URI and a PNG QR code, then enables with a valid code', async () => {
    const c = await newUser('tess');
    expect((await c.send('GET', '/auth/2fa/qr-code')).statusCode).toBe(400);
    const setup = await c.send('POST', '/auth/2fa/setup');
    expect(setup.statusCode).toBe(200);
    const { secret, otpauth_url } = setup.json<{ secret: string; otpauth_url: string }>();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(otpauth_url).toMatch(/^otpauth:\/\/totp\/Signal%20Console:tess\?/);
    expect(otpauth_url).toContain(`secret=${secret}`);
    expect(otpauth_url).toContain('issuer=Signal%20Console');

    const qr = await c.send('GET', '/auth/2fa/qr-code');
    expect(qr.statusCode).toBe(200);
    expect(qr.headers['content-type']).toBe('image/png');
    expect(qr.rawPayload.subarray(1, 4).toString()).toBe('PNG');

    const wrong = await c.send('POST', '/auth/2fa/verify', { code: '000000' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toEqual({ detail: AUTH_DETAILS.invalidCode });
    expect((await c.send('POST', '/auth/2fa/verify', { code: '12345' })).statusCode).toBe(422);

    const ok = await c.send('POST', '/auth/2fa/verify', { code: totpCode(secret) });
    expect(ok.statusCode).toBe(200);
    const codes = ok.json<{ recovery_codes: string[] }>().recovery_codes;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[A-Z2-7]{5}-[A-Z2-7]{5}$/);
    expect((await c.send('GET', '/users/me')).json()).toMatchObject({ is_two_factor_enabled: true });
    expect((await c.send('POST', '/auth/2fa/setup')).json()).toEqual({
      detail: AUTH_DETAILS.twoFactorAlreadyOn,
    });
  });

  it('asks for the code after the password and issues no token until it is right', async () => {
    const c = await newUser('uma');
    const { secret } = await enableTwoFactor(c);
    const fresh = client();
    const first = await fresh.login('uma');
    expect(first.statusCode).toBe(200);
    const body = first.json<{ two_factor_required: boolean; user_id: string }>();
    expect(body).toEqual({ two_factor_required: true, user_id: expect.any(String) });
    expect(first.cookies).toEqual([]);

    const bad = await fresh.send('POST', '/auth/2fa/login', { user_id: body.user_id, code: '000000' });
    expect(bad.statusCode).toBe(401);
    expect(bad.json()).toEqual({ detail: AUTH_DETAILS.invalidCode });

    const code = totpCode(secret, Date.now() + NEXT_STEP);
    const ok = await fresh.send('POST', '/auth/2fa/login', { user_id: body.user_id, code });
    expect(ok.statusCode).toBe(200);
    fresh.token = ok.json<{ access_token: string }>().access_token;
    expect((await fresh.send('GET', '/users/me')).json()).toMatchObject({ username: 'uma' });
    expect(fresh.cookies.has('sc_refresh')).toBe(true);

    // The same code again, within its window, is a replay.
    const again = client();
    const challenge = (await again.login('uma')).json<{ user_id: string }>().user_id;
    expect(challenge).not.toBe(body.user_id);
    const replay = await again.send('POST', '/auth/2fa/login', { user_id: challenge, code });
    expect(replay.statusCode).toBe(401);
    expect(replay.json()).toEqual({ detail: AUTH_DETAILS.invalidCode });
  });

  it('accepts each recovery code once in place of a code', async () => {
    const c = await newUser('vic');
    const { recoveryCodes } = await enableTwoFactor(c);
    const code = recoveryCodes[3] ?? '';
    const a = client();
    const userId = (await a.login('vic')).json<{ user_id: string }>().user_id;
    expect(
      (await a.send('POST', '/auth/2fa/login', { user_id: userId, code: code.toLowerCase() })).statusCode,
    ).toBe(200);
    const b = client();
    const second = (await b.login('vic')).json<{ user_id: string }>().user_id;
    const reused = await b.send('POST', '/auth/2fa/login', { user_id: second, code });
    expect(reused.statusCode).toBe(401);
    expect(reused.json()).toEqual({ detail: AUTH_DETAILS.invalidCode });
  });

  it('allows five tries, and the pending step expires after five minutes', async () => {
    const c = await newUser('wes');
    const { secret } = await enableTwoFactor(c);
    const d = client();
    const userId = (await d.login('wes')).json<{ user_id: string }>().user_id;
    for (let i = 0; i < 5; i += 1) {
      expect((await d.send('POST', '/auth/2fa/login', { user_id: userId, code: '000000' })).statusCode).toBe(
        401,
      );
    }
    const sixth = await d.send('POST', '/auth/2fa/login', {
      user_id: userId,
      code: totpCode(secret, Date.now() + NEXT_STEP),
    });
    expect(sixth.statusCode).toBe(401);
    expect(sixth.json()).toEqual({ detail: AUTH_DETAILS.challengeExpired });

    const e = client();
    const pending = (await e.login('wes')).json<{ user_id: string }>().user_id;
    await t.database.db.execute(
      sql`update login_challenges set expires_at = now() - interval '1 second' where token_hash is not null`,
    );
    const late = await e.send('POST', '/auth/2fa/login', {
      user_id: pending,
      code: totpCode(secret, Date.now() + NEXT_STEP),
    });
    expect(late.json()).toEqual({ detail: AUTH_DETAILS.challengeExpired });
    const none = await client().send('POST', '/auth/2fa/login', {
      user_id: '00000000-0000-4000-8000-000000000000',
      code: '123456',
    });
    expect(none.statusCode).toBe(401);
  });

  it('hands out an opaque single-use challenge: the account id alone spends none of its tries', async () => {
    const c = await newUser('yul');
    const { secret } = await enableTwoFactor(c);
    const accountId = (await c.send('GET', '/users/me')).json<{ id: string }>().id;
    const d = client();
    const challenge = (await d.login('yul')).json<{ user_id: string }>().user_id;
    expect(challenge).not.toBe(accountId);
    expect(challenge).toMatch(/^[\w-]{40,}$/);
    // Someone who knows the id tries it six times: the pending step is untouched.
    const stranger = client();
    for (let i = 0; i < 6; i += 1) {
      const res = await stranger.send('POST', '/auth/2fa/login', { user_id: accountId, code: '000000' });
      expect(res.json()).toEqual({ detail: AUTH_DETAILS.challengeExpired });
    }
    const ok = await d.send('POST', '/auth/2fa/login', {
      user_id: challenge,
      code: totpCode(secret, Date.now() + NEXT_STEP),
    });
    expect(ok.statusCode).toBe(200);
    const again = await client().send('POST', '/auth/2fa/login', {
      user_id: challenge,
      code: totpCode(secret, Date.now() + 2 * NEXT_STEP),
    });
    expect(again.json()).toEqual({ detail: AUTH_DETAILS.challengeExpired });
  });

  it('disables only with the password', async () => {
    const c = await newUser('xia');
    await enableTwoFactor(c);
    const wrong = await c.send('POST', '/auth/2fa/disable', { password: 'not it' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toEqual({ detail: AUTH_DETAILS.wrongPassword });
    expect((await c.send('POST', '/auth/2fa/disable', {})).statusCode).toBe(422);
    const ok = await c.send('POST', '/auth/2fa/disable', { password: 'correct horse' });
    expect(ok.json()).toEqual({ message: 'Two-factor authentication disabled.' });
    expect((await c.send('GET', '/users/me')).json()).toMatchObject({ is_two_factor_enabled: false });
    const plain = await client().login('xia');
    expect(plain.json()).toMatchObject({ token_type: 'bearer' });
    expect((await c.send('POST', '/auth/2fa/disable', { password: 'correct horse' })).json()).toEqual({
      detail: AUTH_DETAILS.twoFactorNotOn,
    });
  });

  it('needs a login for every 2FA management route', async () => {
    const c = client();
    for (const [method, url] of [
      ['POST', '/auth/2fa/setup'],
      ['GET', '/auth/2fa/qr-code'],
      ['POST', '/auth/2fa/verify'],
      ['POST', '/auth/2fa/disable'],
    ] as const) {
      expect((await c.send(method, url, method === 'POST' ? {} : undefined)).statusCode).toBe(401);
    }
  });

  it('limits 2FA login tries per address', async () => {
    const c = client();
    const body = { user_id: '00000000-0000-4000-8000-000000000001', code: '123456' };
    for (let i = 0; i < 10; i += 1)
      expect((await c.send('POST', '/auth/2fa/login', body)).statusCode).toBe(401);
    const limited = await c.send('POST', '/auth/2fa/login', {
      ...body,
      user_id: '00000000-0000-4000-8000-000000000002',
    });
    expect(limited.statusCode).toBe(429);
    expect(limited.json<{ detail: string }>().detail).toMatch(/Please try again in \d+ s\.$/);
  });
});
