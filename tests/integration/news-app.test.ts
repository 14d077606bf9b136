import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignalList, type Signal } from '../../src/contracts/signals';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import {
  startBinanceAnnouncementsDouble,
  startRssDouble,
  startTelegramDouble,
  startXStreamDouble,
} from '../fixtures/news-doubles';

const pglite = useDatabase(dbTargets()[0]);

async function signalsWhere(t: TestApp, pred: (list: Signal[]) => boolean, ms = 10_000): Promise<Signal[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const list = SignalList.parse((await t.app.inject('/api/signals?limit=200')).json());
    if (pred(list)) return list;
    if (Date.now() > deadline) throw new Error(`timed out; have ${list.length} signals`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('replay source in the app (the offline default)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(pglite, { REPLAY_INTERVAL_MS: '20' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('fills the feed with analysed replay signals whose icons and media are served locally', async () => {
    const list = await signalsWhere(
      t,
      (l) => l.filter((s) => s.analysis.status === 'completed').length >= 20,
    );
    expect(list.every((s) => s.source === 'replay')).toBe(true);
    const icons = new Set(list.map((s) => s.metadata.icon));
    expect(icons.size).toBeGreaterThan(3);
    for (const icon of icons) {
      expect(icon).toMatch(/^\/api\/news\/assets\/icons\//);
      const res = await t.app.inject(icon ?? '');
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('image/svg+xml');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['cache-control']).toBe('public, max-age=86400');
    }
    const media = await t.app.inject('/api/news/assets/media/chart-up.svg');
    expect(media.statusCode).toBe(200);
    expect(media.body).toContain('<svg');
    expect((await t.app.inject('/api/news/assets/icons/nope.svg')).statusCode).toBe(404);
    expect((await t.app.inject('/api/news/assets/icons/..%2f..%2fnews.service.ts')).statusCode).toBe(422);
    expect((await t.app.inject('/api/news/assets/secret/x.svg')).statusCode).toBe(422);
  });

  it('says the news is replayed in the health check', async () => {
    const health = (await t.app.inject('/api/healthz')).json() as { news: string[]; standins: string[] };
    expect(health.news).toEqual(['replay']);
    expect(health.standins).toContain('replayed news');
  });
});

describe('remote sources in the app, each against its local double', () => {
  let t: TestApp;
  const closers: (() => Promise<void>)[] = [];
  let x: Awaited<ReturnType<typeof startXStreamDouble>>;
  beforeAll(async () => {
    const rss = await startRssDouble([
      {
        guid: 'r1',
        title: 'Lido adds dual governance to staking contracts',
        link: 'https://wire.test/r1',
        date: new Date(),
      },
    ]);
    const binance = await startBinanceAnnouncementsDouble([
      { id: 9, code: 'b9', title: 'Binance Will List Kaito (KAITO)', releaseDate: Date.now(), catalogId: 48 },
    ]);
    x = await startXStreamDouble('xt');
    const tg = await startTelegramDouble('42:tok');
    tg.add({
      update_id: 1,
      channel_post: {
        message_id: 3,
        date: 1735689600,
        chat: { id: -5, type: 'channel', title: 'Desk' },
        text: 'Upbit lists ARKM in KRW market',
      },
    });
    closers.push(rss.close, binance.close, x.close, tg.close);
    t = await startTestApp(pglite, {
      NEWS_SOURCES: 'rss,binance-announcements,x,telegram',
      RSS_FEEDS: `${rss.url}/feed.xml`,
      NEWS_POLL_MS: '100',
      BINANCE_ANNOUNCEMENTS_URL: `${binance.url}/bapi/composite/v1/public/cms/article/list/query`,
      X_API_URL: x.url,
      X_BEARER_TOKEN: 'xt',
      TELEGRAM_API_URL: tg.url,
      TELEGRAM_BOT_TOKEN: '42:tok',
    });
  });
  afterAll(async () => {
    await t?.close();
    for (const c of closers) await c();
  });

  it('ingests from rss, binance-announcements, x and telegram and reports each as live', async () => {
    const deadline = Date.now() + 10_000;
    while (x.open === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    x.push({
      data: { id: '77', text: 'Whale moves 9,000 BTC to cold storage', author_id: 'u' },
      includes: { users: [{ id: 'u', username: 'tracker' }] },
    });
    const list = await signalsWhere(t, (l) => new Set(l.map((s) => s.source)).size === 4);
    expect(new Set(list.map((s) => s.source))).toEqual(
      new Set(['rss', 'binance-announcements', 'x', 'telegram']),
    );
    expect(list.find((s) => s.source === 'binance-announcements')?.metadata.source_name).toBe(
      'Binance Announcements',
    );
    const health = (await t.app.inject('/api/healthz')).json() as { news: string[]; standins: string[] };
    expect(health.news.sort()).toEqual(['binance-announcements', 'rss', 'telegram', 'x']);
    expect(health.standins).not.toContain('replayed news');
  });
});
