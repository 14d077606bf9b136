import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { AuthClient } from './auth.support';

describe.each(dbTargets())('who becomes admin by signing up, on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('makes exactly one admin when the first sign-ups race on an empty database', async () => {
    t = await startTestApp(target);
    const app = t.app;
    const answers = await Promise.all(
      ['ann', 'ben', 'cat', 'dan', 'eve', 'fay'].map((name) => new AuthClient(app).signup(name)),
    );
    expect(answers.map((a) => a.statusCode)).toEqual([201, 201, 201, 201, 201, 201]);
    const roles = answers.map((a) => a.json<{ role: string }>().role);
    expect(roles.filter((r) => r === 'admin')).toHaveLength(1);
  }, 120_000);

  it('on a server exposed beyond loopback, only ADMIN_EMAILS makes admins', async () => {
    t = await startTestApp(target, { HOST: '0.0.0.0', ADMIN_EMAILS: 'owner@example.com' });
    const first = await new AuthClient(t.app).signup('early');
    expect(first.json()).toMatchObject({ username: 'early', role: 'user' });
    const owner = await new AuthClient(t.app).signup('owner', 'correct horse', 'owner@example.com');
    expect(owner.json()).toMatchObject({ role: 'admin' });
  }, 120_000);
});
