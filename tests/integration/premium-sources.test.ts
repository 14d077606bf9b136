import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignalList } from '../../src/contracts/signals';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';
import { TOKEN, collectPublished, ingest, item, openSse } from './news.support';

type Auth = { authorization: string };

/** A source marked premium (`PREMIUM_NEWS_SOURCES`): its items reach Premium accounts only. */
describe.each(dbTargets())('premium news sources on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let admin: Auth;
  let free: Auth;
  let paid: Auth;

  beforeAll(async () => {
    t = await startTestApp(target, {
      NEWS_SOURCES: 'webhook',
      INGEST_TOKEN: TOKEN,
      PREMIUM_NEWS_SOURCES: 'webhook',
    });
    admin = await signUpAndLogIn(t.app, 'root');
    free = await signUpAndLogIn(t.app, 'fay');
    paid = await signUpAndLogIn(t.app, 'pat');
    const patId = ((await t.app.inject({ url: '/api/users/me', headers: paid })).json() as { id: string }).id;
    const granted = await t.app.inject({
      method: 'POST',
      url: `/api/admin/users/${patId}/premium`,
      headers: admin,
      payload: { premium: true, days: 30 },
    });
    expect(granted.statusCode).toBe(200);
  });
  afterAll(() => t.close());

  const history = async (auth?: Auth) => {
    const res = await t.app.inject({ url: '/api/signals?limit=50', ...(auth ? { headers: auth } : {}) });
    expect(res.statusCode).toBe(200);
    return SignalList.parse(res.json());
  };

  it('keeps the items of a premium source out of the public stream and out of free accounts’ history', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/api/signals/stream`;
    const sse = await openSse(url);
    await sse.waitFor((f) => f.length >= 1);
    const published = collectPublished(t.app);
    expect((await ingest(t.app, item('Kraken lists a new ZZZ perpetual with 10x leverage'))).statusCode).toBe(
      202,
    );
    // Stored, analysed and published on the bus (rules and admin counts see it)…
    await published.waitFor(() => published.events.some((e) => e.signal.analysis.status === 'completed'));
    published.dispose();
    // …but the public stream sent none of it.
    await new Promise((r) => setTimeout(r, 200));
    expect(sse.signals()).toEqual([]);
    sse.close();

    expect(await history()).toEqual([]);
    expect(await history(free)).toEqual([]);
    const forPremium = await history(paid);
    expect(forPremium.map((s) => s.content)).toEqual(['Kraken lists a new ZZZ perpetual with 10x leverage']);
    expect(forPremium[0]?.source).toBe('webhook');
  });
});
