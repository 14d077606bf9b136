import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityList } from '../../src/contracts/activity';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { AuthClient, decodeQuotedPrintable, enableTwoFactor, totpCode } from './auth.support';

const PASSWORD = 'correct horse battery';

describe.each(dbTargets())('a sign-in with a recovery code on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(target);
  });
  afterAll(() => t?.close());

  const client = () => new AuthClient(t.app);
  const activity = async (c: AuthClient) => {
    const res = await c.send('GET', '/account/activity');
    expect(res.statusCode, res.body).toBe(200);
    return ActivityList.parse(res.json());
  };
  const mailsTo = async (address: string) => {
    const dir = path.join(t.dataDir, 'outbox');
    const files = (await readdir(dir).catch(() => [])).sort();
    const all = await Promise.all(
      files.map(async (f) => decodeQuotedPrintable(await readFile(path.join(dir, f), 'utf8'))),
    );
    return all.filter((m) => m.includes(`To: ${address}`));
  };
  /** A new account with 2FA on; answers its client, its secret and its recovery codes. */
  const withTwoFactor = async (name: string) => {
    const c = client();
    await c.signup(name, PASSWORD);
    await c.login(name, PASSWORD);
    return { c, ...(await enableTwoFactor(c)) };
  };
  /** The password step, then the code step with `code`: answers the signed-in client. */
  const twoStep = async (name: string, code: string) => {
    const c = client();
    const challenge = (await c.login(name, PASSWORD)).json<{ user_id: string }>().user_id;
    const res = await c.send('POST', '/auth/2fa/login', { user_id: challenge, code });
    expect(res.statusCode, res.body).toBe(200);
    c.token = res.json<{ access_token: string }>().access_token;
    return c;
  };

  it('logs it as a password and a recovery code with the count left, and mails the owner', async () => {
    const { recoveryCodes } = await withTwoFactor('rory');
    const c = await twoStep('rory', recoveryCodes[0] ?? '');
    const [latest] = await activity(c);
    expect(latest).toMatchObject({
      kind: 'sign_in',
      text: 'Signed in with a password and a recovery code (9 left)',
      device: 'Chrome on Linux',
    });
    await expect.poll(async () => (await mailsTo('rory@example.com')).length).toBe(2);
    const mail = (await mailsTo('rory@example.com')).find((m) => m.includes('recovery code was used'));
    expect(mail).toContain('Subject: A recovery code was used on your Signal Console account');
    expect(mail).toContain('Signed in with a password and a recovery code (9 left) from Chrome on Linux');
    expect(mail).toContain('9 are left');
  });

  it('with the code in the password form too; a 2FA code stays an ordinary 2FA sign-in', async () => {
    const { secret, recoveryCodes } = await withTwoFactor('sage');
    const one = client();
    const res = await one.send(
      'POST',
      '/auth/token',
      { username: 'sage', password: PASSWORD, code: recoveryCodes[4] ?? '', device_info: '{}' },
      { form: true },
    );
    expect(res.statusCode, res.body).toBe(200);
    one.token = res.json<{ access_token: string }>().access_token;
    expect((await activity(one))[0]?.text).toBe('Signed in with a password and a recovery code (9 left)');

    const two = await twoStep('sage', recoveryCodes[5]?.toLowerCase() ?? '');
    expect((await activity(two))[0]?.text).toBe('Signed in with a password and a recovery code (8 left)');

    const three = await twoStep('sage', totpCode(secret, Date.now() + 30_000));
    expect((await activity(three))[0]?.text).toBe('Signed in with a password and a 2FA code');
    const mails = await mailsTo('sage@example.com');
    expect(mails.filter((m) => m.includes('Subject: A recovery code was used'))).toHaveLength(2);
  });

  it('a recovery code that confirms a sensitive action is logged with the count left', async () => {
    const { c, recoveryCodes } = await withTwoFactor('tamsin');
    const res = await c.send('POST', '/auth/step-up', { code: recoveryCodes[1] ?? '' });
    expect(res.statusCode, res.body).toBe(200);
    expect((await activity(c))[0]).toMatchObject({
      kind: 'step_up',
      text: 'Confirmed it was you with a recovery code (9 left)',
    });
  });

  it('30 sign-ins at once with one recovery code: one gets in, and one line says 9 left', async () => {
    const { c, recoveryCodes } = await withTwoFactor('ulla');
    const code = recoveryCodes[2] ?? '';
    const tries = Array.from({ length: 30 }, () =>
      client().send(
        'POST',
        '/auth/token',
        { username: 'ulla', password: PASSWORD, code, device_info: '{}' },
        { form: true },
      ),
    );
    const answers = await Promise.all(tries);
    expect(answers.filter((r) => r.statusCode === 200)).toHaveLength(1);
    const recovered = (await activity(c)).filter((e) => e.text.includes('recovery code'));
    expect(recovered.map((e) => e.text)).toEqual(['Signed in with a password and a recovery code (9 left)']);
  });
});
