import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';
import { TOKEN } from './news.support';

const refused = (where: (string | number)[]) => ({
  detail: [{ loc: where, msg: 'Control characters are not allowed.', type: 'value_error' }],
});

describe('control characters at the edge', () => {
  let t: TestApp;
  let authorization: string;
  beforeAll(async () => {
    t = await startTestApp(useDatabase(dbTargets()[0]), { NEWS_SOURCES: 'webhook', INGEST_TOKEN: TOKEN });
    authorization = (await signUpAndLogIn(t.app, 'nul-tester')).authorization;
  });
  afterAll(() => t.close());

  it('answers 422 naming the field for a NUL byte in the login form, never a 500', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'username=ann%00&password=whatever123',
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual(refused(['body', 'username']));
  });

  it('refuses one in a path parameter, a query and a JSON body', async () => {
    const del = await t.app.inject({
      method: 'DELETE',
      url: '/api/watchlist/%00',
      headers: { authorization },
    });
    expect([del.statusCode, del.json()]).toEqual([422, refused(['path', 'ticker'])]);
    const query = await t.app.inject({ url: '/api/signals?asset=BTC%01' });
    expect([query.statusCode, query.json()]).toEqual([422, refused(['query', 'asset'])]);
    const body = await t.app.inject({
      method: 'POST',
      url: '/api/auth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `username=ann&password=whatever123&device_info=${encodeURIComponent('{"browser":"x\u0000"}')}`,
    });
    expect([body.statusCode, body.json()]).toEqual([422, refused(['body', 'device_info'])]);
    const nested = await t.app.inject({
      method: 'POST',
      url: '/api/rules/',
      headers: { authorization },
      payload: {
        ruleName: 'ok',
        conditions: { asset: 'S\u007fOL' },
        action: { side: 'long', amount_usd: 10 },
      },
    });
    expect([nested.statusCode, nested.json()]).toEqual([422, refused(['body', 'conditions', 'asset'])]);
  });

  it('keeps tabs and line breaks, which real posts carry', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/signals/ingest',
      headers: { authorization: `Bearer ${TOKEN}` },
      payload: { content: 'Line one\n\tLine two\r\nBTC breaks out', source_name: 'Desk' },
    });
    expect(res.statusCode).toBe(202);
  });
});
