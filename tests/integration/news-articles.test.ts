import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPLAY_AUTHORS, REPLAY_ITEMS } from '../../server/modules/news/sources/replay-data';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';

describe.each(dbTargets())('replay article pages on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(target);
  });
  afterAll(() => t?.close());

  it('serves each item’s page: headline, paragraphs, source, demo note; inert and same-origin only', async () => {
    const long = REPLAY_ITEMS.find((e) => e.body !== undefined);
    if (long === undefined) throw new Error('no long post');
    const res = await t.app.inject(`/api/news/articles/${long.slug}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.headers['content-security-policy']).not.toContain('script-src');
    const html = res.body;
    expect(html).toContain(REPLAY_AUTHORS[long.author].source_name);
    expect(html.match(/<p>/g)?.length).toBeGreaterThanOrEqual((long.body ?? '').split('\n\n').length);
    expect(html).toContain('not a real report');
    expect(html).not.toMatch(/<script|https?:\/\//);
  });

  it('escapes the text, and answers 404 for an unknown or malformed name', async () => {
    const quoted = REPLAY_ITEMS.find((e) => e.text.includes('"'));
    if (quoted !== undefined) {
      const html = (await t.app.inject(`/api/news/articles/${quoted.slug}`)).body;
      expect(html).toContain('&quot;');
    }
    expect((await t.app.inject('/api/news/articles/no-such-article')).statusCode).toBe(404);
    expect((await t.app.inject('/api/news/articles/..%2Fsecrets.key')).statusCode).toBe(422);
  });
});
