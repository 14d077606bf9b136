import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_DETAILS, AUTH_MESSAGES } from '../../src/contracts/auth';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { AuthClient, decodeQuotedPrintable } from './auth.support';

describe.each(dbTargets())('forgotten and reset passwords (outbox) on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  const client = () => new AuthClient(t.app);
  const outbox = () => path.join(t.dataDir, 'outbox');

  const mails = async (): Promise<number> => (await readdir(outbox()).catch(() => [])).length;
  /** Asks for a reset of `email`: the answer comes at once, the mail after it. */
  const forgot = async (email: string) => {
    const before = await mails();
    const res = await client().send('POST', '/auth/forgot-password', { email });
    return { res, before };
  };
  /** The reset token of the mail that arrives after `before` mails were in the outbox. */
  const lastToken = async (before: number): Promise<{ token: string; mail: string }> => {
    await expect.poll(mails, { timeout: 5000 }).toBeGreaterThan(before);
    const files = (await readdir(outbox())).sort();
    const mail = await readFile(path.join(outbox(), files[files.length - 1] ?? ''), 'utf8');
    const match = /reset-password\?token=([A-Za-z0-9_-]+)/.exec(decodeQuotedPrintable(mail));
    if (match?.[1] === undefined) throw new Error(`no link in ${mail}`);
    return { token: match[1], mail };
  };

  beforeAll(async () => {
    t = await startTestApp(target, { PUBLIC_URL: 'https://console.example.com' });
    await client().signup('rita', 'correct horse', 'rita@example.com');
  });
  afterAll(() => t.close());

  it('reports the outbox mailer in the health check', async () => {
    expect((await t.app.inject('/api/healthz')).json()).toMatchObject({ mail: 'outbox' });
  });

  it('answers the same whether or not the email has an account, and mails only when it has', async () => {
    const { res: unknown } = await forgot('nobody@example.com');
    expect(unknown.statusCode).toBe(200);
    expect(unknown.json()).toEqual({ message: AUTH_MESSAGES.forgot });
    await new Promise((r) => setTimeout(r, 200));
    await expect(readdir(outbox())).rejects.toThrow();

    const { res: known, before } = await forgot('RITA@example.com');
    expect(known.statusCode).toBe(200);
    expect(known.json()).toEqual(unknown.json());
    const { mail, token } = await lastToken(before);
    expect(mail).toContain('To: rita@example.com');
    expect(mail).toContain('Subject: Reset your Signal Console password');
    expect(decodeQuotedPrintable(mail)).toContain(
      `https://console.example.com/reset-password?token=${token}`,
    );
    expect(token.length).toBeGreaterThanOrEqual(43);
  });

  it('resets once with the mailed token, ending every session', async () => {
    const session = client();
    await session.login('rita', 'correct horse', true);
    const { before } = await forgot('rita@example.com');
    const { token } = await lastToken(before);

    const short = await client().send('POST', '/auth/reset-password', { token, newPassword: 'short' });
    expect(short.statusCode).toBe(422);
    const ok = await client().send('POST', '/auth/reset-password', { token, newPassword: 'brand new pass' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ message: AUTH_MESSAGES.reset });
    expect((await client().login('rita', 'brand new pass')).statusCode).toBe(200);
    expect((await client().login('rita', 'correct horse')).statusCode).toBe(401);
    expect((await session.refresh()).statusCode).toBe(401);
    expect((await session.send('POST', '/auth/auto-login')).statusCode).toBe(401);

    const twice = await client().send('POST', '/auth/reset-password', { token, newPassword: 'another pass' });
    expect(twice.statusCode).toBe(400);
    expect(twice.json()).toEqual({ detail: AUTH_DETAILS.invalidReset });
  });

  it('voids every outstanding reset link on a reset and on a password change', async () => {
    await client().signup('sami', 'correct horse', 'sami@example.com');
    const first = await lastToken((await forgot('sami@example.com')).before);
    const second = await lastToken((await forgot('sami@example.com')).before);
    const reset = { token: second.token, newPassword: 'second choice pass' };
    expect((await client().send('POST', '/auth/reset-password', reset)).statusCode).toBe(200);
    const stale = await client().send('POST', '/auth/reset-password', {
      token: first.token,
      newPassword: 'the old link wins',
    });
    expect(stale.statusCode).toBe(400);
    expect(stale.json()).toEqual({ detail: AUTH_DETAILS.invalidReset });

    const third = await lastToken((await forgot('sami@example.com')).before);
    const owner = client();
    await owner.login('sami', 'second choice pass');
    const change = await owner.send('POST', '/auth/change-password', {
      current_password: 'second choice pass',
      new_password: 'third choice pass',
    });
    expect(change.statusCode).toBe(200);
    const after = await client().send('POST', '/auth/reset-password', {
      token: third.token,
      newPassword: 'the old link wins',
    });
    expect(after.statusCode).toBe(400);
    expect((await client().login('sami', 'third choice pass')).statusCode).toBe(200);
  });

  it('refuses an expired or unknown token', async () => {
    const { before } = await forgot('rita@example.com');
    const { token } = await lastToken(before);
    await t.database.db.execute(sql`update password_resets set expires_at = now() - interval '1 second'`);
    const expired = await client().send('POST', '/auth/reset-password', {
      token,
      newPassword: 'brand new pass 2',
    });
    expect(expired.statusCode).toBe(400);
    expect(expired.json()).toEqual({ detail: AUTH_DETAILS.invalidReset });
    const unknown = await client().send('POST', '/auth/reset-password', {
      token: 'nope',
      newPassword: 'whatever1',
    });
    expect(unknown.json()).toEqual({ detail: AUTH_DETAILS.invalidReset });
  });

  it('limits forgot-password per address and per account', async () => {
    const one = client();
    for (let i = 0; i < 10; i += 1) {
      expect(
        (await one.send('POST', '/auth/forgot-password', { email: `x${i}@example.com` })).statusCode,
      ).toBe(200);
    }
    const limited = await one.send('POST', '/auth/forgot-password', { email: 'y@example.com' });
    expect(limited.statusCode).toBe(429);
    expect(limited.json<{ detail: string }>().detail).toMatch(
      /^Too many requests\. Please try again in \d+ s\.$/,
    );

    for (let i = 0; i < 10; i += 1)
      await client().send('POST', '/auth/forgot-password', { email: 'z@example.com' });
    expect(
      (await client().send('POST', '/auth/forgot-password', { email: 'Z@example.com' })).statusCode,
    ).toBe(429);
  });

  it('limits reset attempts per address', async () => {
    const one = client();
    for (let i = 0; i < 10; i += 1) {
      await one.send('POST', '/auth/reset-password', { token: `guess-${i}`, newPassword: 'whatever1' });
    }
    const limited = await one.send('POST', '/auth/reset-password', {
      token: 'guess-x',
      newPassword: 'whatever1',
    });
    expect(limited.statusCode).toBe(429);
  });
});
