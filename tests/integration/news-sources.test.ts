import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SourceState } from '../../src/contracts/signals';
import { createFakeClock } from '../../src/services/testing/fakeClock';
import { systemClock } from '../../server/modules/market/clock';
import { ASSETS_DIR } from '../../server/modules/news/media.routes';
import type { Clock, Disposer, NewsSource, RawItem } from '../../server/modules/news/news.types';
import { BinanceAnnouncementsSource } from '../../server/modules/news/sources/binance-source';
import { pollBackoffMs } from '../../server/modules/news/sources/poller';
import { REPLAY_AUTHORS, REPLAY_ITEMS, replayContent } from '../../server/modules/news/sources/replay-data';
import { createLocalAnalyzer } from '../../server/modules/analysis/local-analyzer';
import { normalizeItem } from '../../server/modules/news/normalize';
import { gapMs, ReplaySource } from '../../server/modules/news/sources/replay-source';
import { RssSource } from '../../server/modules/news/sources/rss-source';
import { TelegramSource, updateItem } from '../../server/modules/news/sources/telegram-source';
import { XSource, xBackoff } from '../../server/modules/news/sources/x-source';
import {
  startBinanceAnnouncementsDouble,
  startRssDouble,
  startTelegramDouble,
  startXStreamDouble,
} from '../fixtures/news-doubles';

/** Runs a source with a context that keeps what it emits and each state it reports. */
function run(source: NewsSource, clock: Clock = systemClock) {
  const items: RawItem[] = [];
  const states: SourceState['state'][] = [];
  const stop = source.start({
    clock,
    log: { info: () => undefined, warn: () => undefined },
    emit: (item) => {
      items.push(item);
      return Promise.resolve();
    },
    setState: (state) => states.push(state),
  });
  stops.push(stop);
  return { items, states, stop };
}

const stops: Disposer[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  for (const c of cleanups.splice(0)) await c();
});

async function until(pred: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('replay source', () => {
  it('bundles at least 300 items, with quotes and media, whose icons and media are files in the repo', () => {
    expect(REPLAY_ITEMS.length).toBeGreaterThanOrEqual(300);
    expect(REPLAY_ITEMS.filter((e) => e.quote !== undefined).length).toBeGreaterThanOrEqual(3);
    expect(REPLAY_ITEMS.filter((e) => e.media !== undefined).length).toBeGreaterThanOrEqual(5);
    for (const a of Object.values(REPLAY_AUTHORS))
      expect(existsSync(path.join(ASSETS_DIR, 'icons', a.icon))).toBe(true);
    for (const e of REPLAY_ITEMS)
      for (const m of e.media ?? []) expect(existsSync(path.join(ASSETS_DIR, 'media', m)), m).toBe(true);
  });

  it('has long posts, and spreads the items its labels call high-impact through the loop', () => {
    expect(REPLAY_ITEMS.filter((e) => e.body !== undefined).length).toBeGreaterThanOrEqual(8);
    // Wherever the clock starts the loop, an item the analyzer scores 80+ (the default alert threshold)
    // comes within the next 32 items (~4 minutes).
    const analyzer = createLocalAnalyzer();
    const high = REPLAY_ITEMS.flatMap((e, i) => {
      const author = REPLAY_AUTHORS[e.author];
      const input = {
        content: replayContent(e),
        source_name: author.source_name,
        ...(e.quote === undefined ? {} : { quote: { content: e.quote.text } }),
      };
      return analyzer.analyze(input).impact_score >= 80 ? [i] : [];
    });
    expect(high.length).toBeGreaterThanOrEqual(15);
    const gaps = high.map((at, k) => (high[k + 1] ?? (high[0] ?? 0) + REPLAY_ITEMS.length) - at);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(32);
  });

  it('links every item to its own article page on this server, and keeps a long post’s paragraphs', () => {
    const clock = createFakeClock(0);
    const long = REPLAY_ITEMS.find((e) => e.body !== undefined);
    if (long === undefined) throw new Error('no long post');
    const { items: out } = run(new ReplaySource({ intervalMs: 1000, items: [long] }), clock);
    clock.advance(0);
    const item = out[0];
    expect(item?.url).toBe(`/api/news/articles/${long.slug}`);
    expect(item && normalizeItem(item)?.url).toBe(`/api/news/articles/${long.slug}`);
    expect(item && normalizeItem(item)?.content.split('\n\n').length).toBeGreaterThan(2);
  });

  it('plays at the configured pace on the clock, loops, and gives each pass new ids', () => {
    const clock = createFakeClock(0);
    const items = REPLAY_ITEMS.slice(0, 3);
    const { items: out, states } = run(new ReplaySource({ intervalMs: 1000, items }), clock);
    expect(states).toEqual(['replay']);
    clock.advance(0);
    expect(out).toHaveLength(1);
    const gaps = [1, 2, 3, 4, 5].map((s) => gapMs(1000, s));
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(600);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(1400);
    clock.advance(gaps.reduce((a, b) => a + b, 0));
    expect(out).toHaveLength(6);
    expect(out.map((i) => i.external_id)).toEqual([
      'replay-0-0',
      'replay-0-1',
      'replay-0-2',
      'replay-1-0',
      'replay-1-1',
      'replay-1-2',
    ]);
    expect(out[3]?.content).toBe(out[0]?.content);
    expect(out[0]?.icon).toMatch(/^\/api\/news\/assets\/icons\/[a-z-]+\.svg$/);
  });

  it('backfills the items played before now, oldest first, with their original times and ids', () => {
    const clock = createFakeClock(5_000_000);
    const { items } = run(new ReplaySource({ intervalMs: 1000, backfill: 50 }), clock);
    expect(items).toHaveLength(50);
    const step = (s: number) => `replay-${Math.floor(s / REPLAY_ITEMS.length)}-${s % REPLAY_ITEMS.length}`;
    expect(items[0]?.external_id).toBe(step(4950));
    expect(items[49]?.external_id).toBe(step(4999));
    expect(items[49]?.received_at).toBe(new Date(4_999_000).toISOString());
    expect(items[0]?.published_at).toBe(new Date(4_950_000).toISOString());
    clock.advance(0);
    expect(items[50]?.external_id).toBe(step(5000));
    expect(items[50]?.received_at).toBeUndefined();
  });

  it('continues where the clock says after a restart instead of starting over', () => {
    const clock = createFakeClock(5_000_000);
    const { items } = run(new ReplaySource({ intervalMs: 1000 }), clock);
    clock.advance(0);
    const step = 5000;
    expect(items[0]?.external_id).toBe(
      `replay-${Math.floor(step / REPLAY_ITEMS.length)}-${step % REPLAY_ITEMS.length}`,
    );
  });
});

describe('rss source against a local feed server', () => {
  it('takes the latest items first, then only new ones, with ETag / If-Modified-Since and 304s', async () => {
    const entries = Array.from({ length: 15 }, (_, i) => ({
      guid: `g${i}`,
      title: `Story &amp; number ${i}`,
      link: `https://wire.test/${i}?utm_source=rss`,
      date: new Date(Date.UTC(2025, 0, 1, 0, 15 - i)),
      ...(i === 0 ? { image: 'https://wire.test/0.png' } : {}),
    }));
    const feed = await startRssDouble(entries);
    cleanups.push(feed.close);
    const { items, states } = run(new RssSource({ feeds: [`${feed.url}/feed.xml`], intervalMs: 30 }));
    await until(() => feed.requests.length >= 3);
    expect(items).toHaveLength(10);
    expect(items.at(-1)).toMatchObject({
      source_name: 'Double Wire',
      external_id: 'g0',
      content: 'Story &amp; number 0',
      icon: 'https://wire.test/logo.png',
      media_urls: ['https://wire.test/0.png'],
    });
    expect(states.at(-1)).toBe('live');
    expect(feed.requests[1]?.headers['if-none-match']).toBe('"v1"');
    expect(feed.requests[1]?.headers['if-modified-since']).toBeTruthy();

    // The first answer was waiting in the feed: backlog, which no rule trades.
    expect(items.every((i) => i.backlog === true)).toBe(true);

    feed.add({ guid: 'new', title: 'Fresh story', link: 'https://wire.test/new', date: new Date() });
    await until(() => items.length === 11);
    expect(items.at(-1)?.external_id).toBe('new');
    expect(items.at(-1)?.backlog).toBeUndefined();
  });

  it('reads Atom, backs off after failures and recovers', async () => {
    const feed = await startRssDouble([
      { guid: 'urn:1', title: 'Atom story', link: 'https://a.test/1', date: new Date() },
    ]);
    cleanups.push(feed.close);
    feed.fail(2);
    const { items, states } = run(new RssSource({ feeds: [`${feed.url}/atom.xml`], intervalMs: 20 }));
    await until(() => items.length === 1);
    expect(states.slice(0, 2)).toEqual(['degraded', 'degraded']);
    expect(states.at(-1)).toBe('live');
    expect(items[0]).toMatchObject({
      source_name: 'Atom Double',
      external_id: 'urn:1',
      url: 'https://a.test/1',
    });
    // Doubling from the interval up to the cap, with equal jitter: never sooner than the interval.
    const after = (r: number) => [1, 2, 3, 10].map((f) => pollBackoffMs(1000, f, 30_000, () => r));
    expect(after(0)).toEqual([1000, 2000, 4000, 15_000]);
    expect(after(0.5)).toEqual([1500, 3000, 6000, 22_500]);
  });
});

describe('binance-announcements source against a local double', () => {
  it('emits new listings and delistings once, skips other catalogs, and retries after a 429', async () => {
    const double = await startBinanceAnnouncementsDouble([
      {
        id: 1,
        code: 'c1',
        title: 'Binance Will List Foo (FOO)',
        releaseDate: Date.UTC(2025, 0, 1),
        catalogId: 48,
      },
      {
        id: 2,
        code: 'c2',
        title: 'Binance Will Delist BAR on 2025-02-01',
        releaseDate: Date.UTC(2025, 0, 2),
        catalogId: 161,
      },
      {
        id: 3,
        code: 'c3',
        title: 'Binance Hosts a Trading Competition',
        releaseDate: Date.UTC(2025, 0, 3),
        catalogId: 49,
      },
    ]);
    cleanups.push(double.close);
    double.rateLimit(1);
    const url = `${double.url}/bapi/composite/v1/public/cms/article/list/query`;
    const { items, states } = run(new BinanceAnnouncementsSource({ url, intervalMs: 30 }));
    await until(() => items.length === 2);
    expect(states[0]).toBe('degraded');
    expect(items.map((i) => i.content)).toEqual([
      'Binance Will List Foo (FOO)',
      'Binance Will Delist BAR on 2025-02-01',
    ]);
    expect(items[0]).toMatchObject({
      source_name: 'Binance Announcements',
      username: 'New Cryptocurrency Listing',
      url: `${double.url}/en/support/announcement/c1`,
      external_id: 'c1',
    });
    double.add({
      id: 4,
      code: 'c4',
      title: 'Binance Will List Baz (BAZ)',
      releaseDate: Date.now(),
      catalogId: 48,
    });
    await until(() => items.length === 3);
    await until(() => double.requests.length >= 5);
    expect(items).toHaveLength(3);
    // The first answer (after the 429) lists what was announced before start: backlog; later ones are news.
    expect(items.map((i) => i.backlog === true)).toEqual([true, true, false]);
    expect(new URL(double.requests[0]?.url ?? '', 'http://x').searchParams.get('pageSize')).toBe('20');
  });
});

describe('x source against a local filtered-stream double', () => {
  it('parses tweets with author, media and quote, survives keep-alives, reconnects after a drop and a 429', async () => {
    const double = await startXStreamDouble('x-token');
    cleanups.push(double.close);
    double.rateLimit(1);
    const clock = createFakeClock(Date.now());
    // No jitter on top of X's own waits here (random 0), so they can be timed to the millisecond.
    const { items, states } = run(
      new XSource({ baseUrl: double.url, bearerToken: 'x-token', random: () => 0 }),
      clock,
    );
    clock.advance(0);
    await until(() => states.includes('degraded'));
    // X asks for at least a minute after a 429.
    clock.advance(59_999);
    expect(double.connects).toBe(0);
    clock.advance(1);
    await until(() => double.open === 1);
    expect(states).toEqual(['degraded', 'live']);
    expect(double.requests.at(-1)?.url).toContain('expansions=author_id');
    double.keepAlive();
    double.push({
      data: {
        id: '1801',
        text: 'Big if true: $SOL ETF filing amended',
        author_id: 'u1',
        created_at: '2025-01-01T00:00:00.000Z',
        attachments: { media_keys: ['m1'] },
        referenced_tweets: [{ type: 'quoted', id: '1700' }],
      },
      includes: {
        users: [
          { id: 'u1', username: 'alice', name: 'Alice', profile_image_url: 'https://pbs.twimg.test/a.jpg' },
          { id: 'u2', username: 'bob', name: 'Bob' },
        ],
        media: [{ media_key: 'm1', type: 'photo', url: 'https://pbs.twimg.test/m1.jpg' }],
        tweets: [{ id: '1700', text: 'Asset manager files for SOL ETF', author_id: 'u2' }],
      },
      matching_rules: [{ id: 'r1', tag: 'crypto' }],
    });
    await until(() => items.length === 1);
    expect(items[0]).toMatchObject({
      source_name: 'X',
      username: 'alice',
      icon: 'https://pbs.twimg.test/a.jpg',
      url: 'https://x.com/alice/status/1801',
      media_urls: ['https://pbs.twimg.test/m1.jpg'],
      external_id: '1801',
      quote: { username: 'bob', content: 'Asset manager files for SOL ETF' },
    });
    double.dropAll();
    await until(() => states.at(-1) === 'degraded');
    clock.advance(250);
    await until(() => double.connects === 2);
    double.push({
      data: { id: '1802', text: 'second tweet after reconnect', author_id: 'u1' },
      includes: { users: [] },
    });
    await until(() => items.length === 2);
    // X's waits are the least; jitter adds up to half of them again.
    expect(xBackoff('network', 1, () => 0)).toBe(250);
    expect(xBackoff('network', 100, () => 0)).toBe(16_000);
    expect(xBackoff('http', 3, () => 0)).toBe(20_000);
    expect(xBackoff('http', 30, () => 0)).toBe(320_000);
    expect(xBackoff('rate', 1, () => 0)).toBe(60_000);
    expect(xBackoff('rate', 1, () => 0.5)).toBe(75_000);
    expect(xBackoff('rate', 9, () => 0.5)).toBe(1_125_000);
    for (let i = 0; i < 50; i += 1) expect(xBackoff('http', 1)).toBeGreaterThanOrEqual(5_000);
  });

  it('reports a wrong token as degraded', async () => {
    const double = await startXStreamDouble('right');
    cleanups.push(double.close);
    const clock = createFakeClock();
    const { states } = run(new XSource({ baseUrl: double.url, bearerToken: 'wrong' }), clock);
    clock.advance(0);
    await until(() => states.includes('degraded'));
    expect(double.open).toBe(0);
  });
});

describe('telegram source against a local Bot API double', () => {
  it('never takes a message someone wrote to the bot in a private chat', () => {
    const message = (type: string) => ({
      update_id: 1,
      message: { message_id: 2, date: 1735689600, chat: { id: 7, type, title: 'Room' }, text: 'buy BTC now' },
    });
    expect(updateItem(message('private'))).toBeNull();
    expect(updateItem(message('supergroup'))?.content).toBe('buy BTC now');
  });

  it('long-polls with increasing offsets, turns channel posts into items, and waits retry_after on 429', async () => {
    const double = await startTelegramDouble('123:abc');
    cleanups.push(double.close);
    double.fail({ code: 429, description: 'Too Many Requests: retry after 0', retry_after: 0 });
    double.add({
      update_id: 10,
      channel_post: {
        message_id: 55,
        date: 1735689600,
        chat: { id: -100123, type: 'channel', title: 'Crypto Desk', username: 'cryptodesk' },
        text: 'Exchange X lists TOKEN today',
      },
    });
    const { items, states } = run(
      new TelegramSource({ baseUrl: double.url, botToken: '123:abc', intervalMs: 20, longPollSeconds: 1 }),
    );
    await until(() => items.length === 1);
    expect(states[0]).toBe('degraded');
    expect(items[0]).toMatchObject({
      source_name: 'Telegram',
      username: 'Crypto Desk',
      url: 'https://t.me/cryptodesk/55',
      external_id: '-100123:55',
      published_at: '2025-01-01T00:00:00.000Z',
      // Queued before the first poll: backlog.
      backlog: true,
    });
    double.add({
      update_id: 11,
      channel_post: {
        message_id: 56,
        date: 1735689700,
        chat: { id: -100123, type: 'channel' },
        caption: 'Chart attached',
      },
    });
    await until(() => items.length === 2);
    expect(items[1]?.backlog).toBeUndefined();
    await until(() => double.offsets.includes(12));
    expect(double.offsets.filter((o) => o === 11).length).toBeGreaterThanOrEqual(1);
    expect(items).toHaveLength(2);
    expect(double.requests.every((r) => r.url.includes('allowed_updates'))).toBe(true);
  });
});
