import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { AuthClient } from './auth.support';

describe.each(dbTargets())('the refresh grace window on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  const client = () => new AuthClient(t.app);
  beforeAll(async () => {
    t = await startTestApp(target);
  });
  afterAll(() => t.close());

  it('gives one sibling per rotated token, and the sibling is not stepped up', async () => {
    const owner = client();
    await owner.signup('gina', 'correct horse battery', 'gina@example.com');
    expect((await owner.login('gina', 'correct horse battery')).statusCode).toBe(200);
    // A fresh password sign-in counts as confirmed.
    expect((await owner.send('GET', '/auth/step-up')).json()).toMatchObject({
      confirmed_until: expect.any(String),
    });
    const rotated = owner.cookies.get('sc_refresh') ?? '';
    expect((await owner.refresh()).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 3000));

    const thieves = Array.from({ length: 20 }, () => {
      const c = client();
      c.cookies.set('sc_refresh', rotated);
      return c;
    });
    const answers = await Promise.all(thieves.map((c) => c.refresh()));
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.statusCode === 401)).toHaveLength(19);
    const sibling = thieves.find((c) => c.cookies.has('sc_refresh'));
    expect(sibling).toBeDefined();
    expect((await sibling?.send('GET', '/auth/step-up'))?.json()).toMatchObject({ confirmed_until: null });
    // The owner's own line lives on (the family was not revoked), but has to confirm again too.
    expect((await owner.refresh()).statusCode).toBe(200);
    expect((await owner.send('GET', '/auth/step-up')).json()).toMatchObject({ confirmed_until: null });
    // The sibling's own token rotates like any other.
    expect((await sibling?.refresh())?.statusCode).toBe(200);
  });
});
