import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PASSWORD_COMMON,
  PASSWORD_PATTERN,
  PASSWORD_PERSONAL,
  passwordProblem,
} from '../../server/modules/auth/password-policy';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { AuthClient, decodeQuotedPrintable } from './auth.support';

describe('password policy', () => {
  it('refuses the most common leaked passwords and the account’s own names, whatever the case', () => {
    for (const common of ['password', '12345678', 'Password1', 'qwertyuiop', 'iloveyou'])
      expect(passwordProblem(common, {}), common).toBe(PASSWORD_COMMON);
    expect(passwordProblem('xx-Rita1987-xx', { username: 'rita1987' })).toBe(PASSWORD_PERSONAL);
    expect(passwordProblem('my rita@example.com pass', { email: 'rita@example.com' })).toBe(
      PASSWORD_PERSONAL,
    );
    expect(passwordProblem('ritaroberts!!', { email: 'ritaroberts@example.com' })).toBe(PASSWORD_PERSONAL);
    // Short names are not looked for inside a password; long, unlisted phrases pass.
    expect(passwordProblem('always tidy lamp', { username: 'al' })).toBeNull();
    expect(passwordProblem('correct horse battery', { username: 'rita', email: 'r@example.com' })).toBeNull();
  });

  it('refuses a listed password dressed up: capitals, digits and symbols at its ends, leetspeak', () => {
    for (const dressed of [
      'Password1!',
      'password1!',
      'P@ssw0rd!',
      'Summer2024!',
      'M0nkey123$',
      '!!Dragon2025',
    ])
      expect(passwordProblem(dressed, {}), dressed).toBe(PASSWORD_COMMON);
    // A listed word inside a longer phrase, or a short one with digits, is not such a guess.
    for (const fine of ['correct horse battery', 'second Pa55word!', 'xy2024!!zz', 'Tr0ub4dor&3 lamp'])
      expect(passwordProblem(fine, {}), fine).toBeNull();
  });

  it('refuses one repeated character, a repeated short pattern and a run of keys', () => {
    for (const weak of [
      'aaaaaaaa',
      '        ',
      'zzzzzzzzzzzz',
      'abababab',
      'xyzxyzxyz',
      'asdfghjkl',
      'lkjhgfdsa',
      '87654321',
      'defghijklm',
    ])
      expect(passwordProblem(weak, {}), JSON.stringify(weak)).toMatch(/^This password is too/);
    expect(passwordProblem('qazwsxedc plum', {})).toBeNull();
    expect(passwordProblem('aaaaaaab tide', {})).toBeNull();
    expect(passwordProblem('        ', {})).toBe(PASSWORD_PATTERN);
  });
});

describe.each(dbTargets())('password policy over HTTP on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  const client = () => new AuthClient(t.app);
  beforeAll(async () => {
    t = await startTestApp(target);
  });
  afterAll(() => t?.close());

  const issue = (body: unknown) => (body as { detail: { loc: string[]; msg: string }[] }).detail[0];

  it('refuses at sign-up with a 422 on the password field, and creates nothing', async () => {
    const common = await client().signup('vera', 'password123');
    expect(common.statusCode).toBe(422);
    expect(issue(common.json())).toMatchObject({ loc: ['body', 'password'], msg: PASSWORD_COMMON });
    const personal = await client().signup('veronica', 'veronica is here', 'vera@example.com');
    expect(issue(personal.json())).toMatchObject({ msg: PASSWORD_PERSONAL });
    const dressed = await client().signup('vera', 'Password1!');
    expect(dressed.statusCode).toBe(422);
    expect(issue(dressed.json())).toMatchObject({ loc: ['body', 'password'], msg: PASSWORD_COMMON });
    const repeated = await client().signup('vera', 'aaaaaaaa');
    expect(issue(repeated.json())).toMatchObject({ loc: ['body', 'password'], msg: PASSWORD_PATTERN });
    expect((await client().signup('vera', 'correct horse battery')).statusCode).toBe(201);
  });

  it('refuses at password change and at reset; a refused reset leaves the mailed link usable', async () => {
    const c = client();
    await c.login('vera', 'correct horse battery');
    const change = await c.send('POST', '/auth/change-password', {
      current_password: 'correct horse battery',
      new_password: 'qwertyuiop',
    });
    expect(change.statusCode).toBe(422);
    expect(issue(change.json())).toMatchObject({ loc: ['body', 'new_password'], msg: PASSWORD_COMMON });

    await client().send('POST', '/auth/forgot-password', { email: 'vera@example.com' });
    const outbox = path.join(t.dataDir, 'outbox');
    await expect.poll(async () => (await readdir(outbox).catch(() => [])).length).toBe(1);
    const [file] = await readdir(outbox);
    const mail = decodeQuotedPrintable(await readFile(path.join(outbox, file ?? ''), 'utf8'));
    const token = /token=([A-Za-z0-9_-]+)/.exec(mail)?.[1] ?? '';
    const refused = await client().send('POST', '/auth/reset-password', { token, newPassword: 'iloveyou' });
    expect(refused.statusCode).toBe(422);
    expect(issue(refused.json())).toMatchObject({ loc: ['body', 'newPassword'], msg: PASSWORD_COMMON });
    const ok = await client().send('POST', '/auth/reset-password', {
      token,
      newPassword: 'a far better phrase',
    });
    expect(ok.statusCode).toBe(200);
  });

  it('counts failed logins by username and by e-mail as one account, and makes it wait', async () => {
    await client().signup('walt', 'correct horse battery', 'walt@example.com');
    for (const login of ['walt', 'WALT@example.com', 'walt', 'walt@example.com', 'Walt', 'walt@example.com'])
      expect((await client().login(login, 'wrong password')).statusCode).toBe(401);
    const waiting = await client().login('walt', 'correct horse battery');
    expect(waiting.statusCode).toBe(429);
    expect(Number(waiting.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(waiting.json()).toEqual({
      detail: expect.stringMatching(/^Too many requests\. Please try again in \d+ s\.$/),
    });
    // Another account is not slowed down.
    await client().signup('wendy', 'correct horse battery', 'wendy@example.com');
    expect((await client().login('wendy', 'correct horse battery')).statusCode).toBe(200);
  });
});
