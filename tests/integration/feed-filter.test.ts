import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FeedFilter } from '../../src/contracts/keywords';
import type { Signal } from '../../src/contracts/signals';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';
import { TOKEN, ingest, item, openSse } from './news.support';

const URL = '/api/users/me/feed-filter';

describe.each(dbTargets())('feed filter (%s)', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await startTestApp(target, { NEWS_SOURCES: 'webhook', INGEST_TOKEN: TOKEN });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await t?.close();
  });

  const put = (authorization: string, payload: object) =>
    t.app.inject({ method: 'PUT', url: URL, headers: { authorization }, payload });
  const get = async (authorization: string) =>
    (await t.app.inject({ url: URL, headers: { authorization } })).json() as FeedFilter;

  it('saves and reads each account’s own filter, and clears it with two empty lists', async () => {
    const ann = await signUpAndLogIn(t.app, 'filter-ann');
    const bob = await signUpAndLogIn(t.app, 'filter-bob');
    expect(await get(ann.authorization)).toEqual({ include: [], exclude: [] });
    const saved = await put(ann.authorization, {
      include: [' listing ', 'Listing', 'hack'],
      exclude: ['perpetual'],
    });
    expect(saved.statusCode).toBe(200);
    expect(saved.json()).toEqual({ include: ['listing', 'hack'], exclude: ['perpetual'] });
    expect(await get(ann.authorization)).toEqual({ include: ['listing', 'hack'], exclude: ['perpetual'] });
    expect(await get(bob.authorization)).toEqual({ include: [], exclude: [] });
    expect((await put(ann.authorization, { include: [], exclude: [] })).json()).toEqual({
      include: [],
      exclude: [],
    });
    expect(await get(ann.authorization)).toEqual({ include: [], exclude: [] });
    expect((await t.app.inject({ url: URL })).statusCode).toBe(401);
  });

  it('refuses a list too long or a word too long, naming the list', async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'filter-invalid');
    const many = await put(authorization, { include: Array.from({ length: 21 }, (_, i) => `w${i}`) });
    expect(many.statusCode).toBe(422);
    expect(many.json()).toEqual({
      detail: [
        {
          loc: ['body', 'include'],
          msg: 'Include may hold at most 20 words or phrases.',
          type: expect.any(String),
        },
      ],
    });
    const long = await put(authorization, { exclude: ['a'.repeat(61)] });
    expect(long.statusCode).toBe(422);
    expect(JSON.stringify(long.json())).toContain('Each exclude word or phrase must be 1 to 60 characters.');
    expect(await get(authorization)).toEqual({ include: [], exclude: [] });
  });

  it('leaves out of the list and the live stream what the account’s filter hides, and nothing for others', async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'filter-feed');
    await put(authorization, { exclude: ['perpetual'] });
    const open = await openSse(`${base}/api/signals/stream`, { authorization });
    const anyone = await openSse(`${base}/api/signals/stream`);
    await open.waitFor((f) => f.length >= 1);
    await anyone.waitFor((f) => f.length >= 1);
    await ingest(t.app, [
      item('Exchange lists FOO perpetual contracts'),
      item('Exchange lists FOO spot pair'),
    ]);
    await anyone.waitFor(() => anyone.signals().filter((s) => s.analysis.status === 'completed').length >= 2);
    await open.waitFor(() => open.signals().some((s) => s.analysis.status === 'completed'));
    // The live stream is followed through a change: the excluded word is now allowed, another is not.
    await put(authorization, { exclude: ['spot'] });
    await ingest(t.app, [item('Second exchange lists BAR perpetual'), item('Second exchange adds BAR spot')]);
    await anyone.waitFor(() => anyone.signals().filter((s) => s.analysis.status === 'completed').length >= 4);
    await open.waitFor(() => open.signals().filter((s) => s.analysis.status === 'completed').length >= 2);
    const contents = (list: Signal[]) => [...new Set(list.map((s) => s.content))];
    expect(contents(open.signals())).toEqual([
      'Exchange lists FOO spot pair',
      'Second exchange lists BAR perpetual',
    ]);
    expect(contents(anyone.signals())).toHaveLength(4);
    open.close();
    anyone.close();

    const list = async (headers: Record<string, string>, query = '') =>
      ((await t.app.inject({ url: `/api/signals?limit=2${query}`, headers })).json() as Signal[]).map(
        (s) => s.content,
      );
    // Filtered pages are filled from further back: two that pass, however many it looks through.
    expect(await list({ authorization })).toEqual([
      'Second exchange lists BAR perpetual',
      'Exchange lists FOO perpetual contracts',
    ]);
    expect(await list({})).toEqual(['Second exchange adds BAR spot', 'Second exchange lists BAR perpetual']);
  });
});
