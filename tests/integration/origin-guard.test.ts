import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';

/** A login form posted by another site (login CSRF) is refused; our own page, the CLI and scripts are not. */
describe('cross-site requests', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(useDatabase(dbTargets()[0]), { PUBLIC_URL: 'https://console.example' });
    await t.app.inject({
      method: 'POST',
      url: '/api/auth/signup',
      payload: { email: 'csrf@example.com', username: 'csrf', password: 'correct horse battery' },
    });
  });
  afterAll(() => t.close());

  const login = (headers: Record<string, string>) =>
    t.app.inject({
      method: 'POST',
      url: '/api/auth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded', host: '127.0.0.1:8080', ...headers },
      payload: 'username=csrf&password=correct+horse+battery',
    });

  it('refuses a form posted from another origin, or marked cross-site by the browser', async () => {
    const attempts: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of attempts) {
      const res = await login(headers);
      expect([res.statusCode, res.json()]).toEqual([403, { detail: 'Cross-site request refused.' }]);
    }
  });

  it('lets our own page, the address it was reached at, and callers without an Origin through', async () => {
    expect((await login({ origin: 'https://console.example' })).statusCode).toBe(200);
    expect(
      (await login({ origin: 'http://127.0.0.1:8080', 'sec-fetch-site': 'same-origin' })).statusCode,
    ).toBe(200);
    expect((await login({})).statusCode).toBe(200);
    expect(
      (await t.app.inject({ url: '/api/healthz', headers: { origin: 'https://evil.example' } })).statusCode,
    ).toBe(200);
  });
});
