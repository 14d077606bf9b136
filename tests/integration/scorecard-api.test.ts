import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IngestResponse } from '../../src/contracts/signals';
import { SCORECARD_TEXTS, Scorecard, type ScoreGroup } from '../../src/contracts/scorecard';
import { signalScores } from '../../server/db/schema/scorecard';
import type { ScoreRow } from '../../server/modules/scorecard/scorecard.repo';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';
import { TOKEN, ingest, item } from './news.support';

type Auth = { authorization: string };

interface Seed {
  id: number;
  sourceName: string;
  sentiment: 'positive' | 'negative' | 'neutral';
  impact: number;
  /** Per asset: the price at arrival (or null for none), then at 1, 5 and 30 minutes (null: missing). */
  prices: Record<string, [number | null, number | null, number | null, number | null]>;
  ageMs?: number;
  source?: string;
  priceSource?: 'sim' | 'binance';
}

const HOUR = 3_600_000;
const HORIZONS_S = [0, 60, 300, 1800] as const;

/** The rows the price taker would have written for one signal. */
function rowsOf(seed: Seed, now: number): ScoreRow[] {
  const receivedAt = new Date(now - (seed.ageMs ?? HOUR));
  return Object.entries(seed.prices).flatMap(([asset, prices]) =>
    prices.flatMap((price, i): ScoreRow[] => {
      const horizonS = HORIZONS_S[i] ?? 0;
      if (price === null) return [];
      const dueAt = new Date(receivedAt.getTime() + horizonS * 1000);
      return [
        {
          signalId: 90_000 + seed.id, // far from the ids of the signals a test ingests
          asset,
          horizonS,
          price,
          priceSource: seed.priceSource ?? 'sim',
          receivedAt,
          dueAt,
          takenAt: dueAt,
          source: seed.source ?? 'replay',
          sourceName: seed.sourceName,
          sentiment: seed.sentiment,
          impact: seed.impact,
        },
      ];
    }),
  );
}

const SEEDS: Seed[] = [
  { id: 1, sourceName: 'Wire A', sentiment: 'positive', impact: 85, prices: { BTC: [100, 101, 99, 102] } },
  { id: 2, sourceName: 'Wire A', sentiment: 'negative', impact: 60, prices: { ETH: [10, 9.8, 10.1, null] } },
  { id: 3, sourceName: 'Wire B', sentiment: 'neutral', impact: 30, prices: { SOL: [50, 50.5, 49, 50] } },
  {
    id: 4,
    sourceName: 'Wire B',
    sentiment: 'positive',
    impact: 90,
    prices: { BTC: [200, 200, null, null], ETH: [20, 21, null, null] },
  },
  // Prices of the other market source: never mixed with simulated ones.
  {
    id: 5,
    sourceName: 'Wire C',
    sentiment: 'positive',
    impact: 90,
    prices: { BTC: [1, 2, 3, 4] },
    priceSource: 'binance',
  },
  // Ten days old: outside the default week.
  {
    id: 6,
    sourceName: 'Wire A',
    sentiment: 'positive',
    impact: 70,
    prices: { BTC: [100, 110, null, null] },
    ageMs: 240 * HOUR,
  },
  // From the premium source: only Premium accounts see it.
  {
    id: 7,
    sourceName: 'Insider',
    sentiment: 'negative',
    impact: 95,
    prices: { BTC: [100, 90, null, null] },
    source: 'webhook',
  },
  // No price at arrival: nothing to measure against.
  { id: 8, sourceName: 'Wire C', sentiment: 'positive', impact: 90, prices: { ETH: [null, 5, 6, 7] } },
];

describe.each(dbTargets())('GET /api/signals/scorecard (%s)', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let paid: Auth;
  beforeAll(async () => {
    t = await startTestApp(target, {
      NEWS_SOURCES: 'webhook',
      INGEST_TOKEN: TOKEN,
      PREMIUM_NEWS_SOURCES: 'webhook',
    });
    const admin = await signUpAndLogIn(t.app, 'root');
    paid = await signUpAndLogIn(t.app, 'pat');
    const patId = ((await t.app.inject({ url: '/api/users/me', headers: paid })).json() as { id: string }).id;
    await t.app.inject({
      method: 'POST',
      url: `/api/admin/users/${patId}/premium`,
      headers: admin,
      payload: { premium: true, days: 30 },
    });
    const now = Date.now();
    await t.database.db.insert(signalScores).values(SEEDS.flatMap((s) => rowsOf(s, now)));
  });
  afterAll(() => t.close());

  const read = async (query = '', auth?: Auth) => {
    const res = await t.app.inject({
      url: `/api/signals/scorecard${query}`,
      ...(auth ? { headers: auth } : {}),
    });
    expect(res.statusCode).toBe(200);
    return Scorecard.parse(res.json());
  };
  const at = (g: ScoreGroup | undefined, horizon: string) => g?.horizons.find((h) => h.horizon === horizon);
  const named = (groups: ScoreGroup[], key: string) => groups.find((g) => g.key === key);

  it('scores each horizon: hit rate and mean move in the sentiment’s direction, neutral moves by size', async () => {
    const card = await read();
    expect(card.price_source).toBe('sim');
    // On the random walk, the figures are said to be chance, beside them.
    expect(card.note).toBe(SCORECARD_TEXTS.simulated);
    expect(card.horizons).toEqual(['1m', '5m', '30m']);
    expect(card.overall.signals).toBe(4);
    expect(card.overall.horizons).toEqual([
      {
        horizon: '1m',
        count: 5,
        directional: 4,
        hits: 3,
        hit_rate: 0.75,
        mean_move: 2,
        neutral: 1,
        neutral_abs_move: 1,
      },
      {
        horizon: '5m',
        count: 3,
        directional: 2,
        hits: 0,
        hit_rate: 0,
        mean_move: -1,
        neutral: 1,
        neutral_abs_move: 2,
      },
      {
        horizon: '30m',
        count: 2,
        directional: 1,
        hits: 1,
        hit_rate: 1,
        mean_move: 2,
        neutral: 1,
        neutral_abs_move: 0,
      },
    ]);
  });

  it('groups by source, sentiment and impact band (80+, 50-79, <50), with counts', async () => {
    const card = await read();
    expect(card.by_source.map((g) => [g.key, g.signals])).toEqual([
      ['Wire A', 2],
      ['Wire B', 2],
    ]);
    expect(card.by_sentiment.map((g) => [g.key, g.signals])).toEqual([
      ['positive', 2],
      ['negative', 1],
      ['neutral', 1],
    ]);
    expect(at(named(card.by_sentiment, 'positive'), '1m')).toMatchObject({
      count: 3,
      hits: 2,
      hit_rate: 0.6667,
      mean_move: 2,
    });
    expect(at(named(card.by_sentiment, 'neutral'), '1m')).toMatchObject({
      count: 1,
      directional: 0,
      hit_rate: null,
      mean_move: null,
      neutral_abs_move: 1,
    });
    expect(card.by_impact.map((g) => [g.key, g.signals])).toEqual([
      ['80+', 2],
      ['50-79', 1],
      ['<50', 1],
    ]);
    expect(at(named(card.by_impact, '50-79'), '1m')).toMatchObject({ hits: 1, hit_rate: 1, mean_move: 2 });
    expect(at(named(card.by_impact, '50-79'), '30m')).toMatchObject({ count: 0, hit_rate: null });
  });

  it('looks back 7 days by default, or as far as ?days= or ?since= say', async () => {
    const month = await read('?days=30');
    expect(month.overall.signals).toBe(5);
    expect(named(month.by_source, 'Wire A')?.signals).toBe(3);
    const since = new Date(Date.now() - 2 * HOUR).toISOString();
    const recent = await read(`?since=${encodeURIComponent(since)}`);
    expect(recent.since).toBe(since);
    expect(recent.overall.signals).toBe(4);
    const future = await read(`?since=${encodeURIComponent(new Date(Date.now() + HOUR).toISOString())}`);
    expect(future.overall).toMatchObject({ signals: 0 });
    expect(future.by_impact.map((g) => g.signals)).toEqual([0, 0, 0]);
  });

  it('leaves the premium sources out for guests and free accounts, as the feed does', async () => {
    const guest = await read();
    expect(named(guest.by_source, 'Insider')).toBeUndefined();
    const premium = await read('', paid);
    expect(named(premium.by_source, 'Insider')?.signals).toBe(1);
    expect(premium.overall.signals).toBe(5);
  });

  it('refuses a bad window with field errors', async () => {
    for (const query of [
      '?days=0',
      '?days=91',
      '?days=abc',
      '?since=yesterday',
      '?days=3&since=2026-01-01T00:00:00Z',
    ]) {
      const res = await t.app.inject(`/api/signals/scorecard${query}`);
      expect(res.statusCode, query).toBe(422);
      const detail = (res.json() as { detail: { loc: string[] }[] }).detail;
      expect(detail[0]?.loc[0]).toBe('query');
    }
  });

  it('follows every completed signal: its prices at arrival are stored and the later ones planned', async () => {
    const before = t.api.snapshots.pending;
    const res = await ingest(t.app, item('Binance will list Sui (SUI) and Aptos (APT) perpetual contracts'));
    const id = Number(IngestResponse.parse(res.json()).results[0]?.id);
    const stored = () => t.database.db.select().from(signalScores).where(eq(signalScores.signalId, id));
    for (let i = 0; i < 500 && (await stored()).length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    const rows = await stored();
    expect(rows.map((r) => [r.asset, r.horizonS, r.priceSource]).sort()).toEqual([
      ['APT', 0, 'sim'],
      ['SUI', 0, 'sim'],
    ]);
    expect(rows.every((r) => r.price > 0 && r.sourceName === 'Test Wire')).toBe(true);
    expect(t.api.snapshots.pending).toBe(before + 3);
  });
});
