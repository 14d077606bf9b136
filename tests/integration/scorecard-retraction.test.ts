import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Scorecard } from '../../src/contracts/scorecard';
import { signalScoreRoles, signalScores } from '../../server/db/schema/scorecard';
import type { ScoreRow } from '../../server/modules/scorecard/scorecard.repo';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';

const HOUR = 3_600_000;

/** A signal's price at arrival and one minute later, as the price taker records them. */
function rows(
  signalId: number,
  sentiment: 'positive' | 'negative',
  before: number,
  after: number,
): ScoreRow[] {
  const receivedAt = new Date(Date.now() - HOUR);
  const common = {
    signalId,
    asset: 'BTC',
    priceSource: 'sim',
    receivedAt,
    source: 'webhook',
    sourceName: 'Wire',
    sentiment,
    impact: 90,
  };
  const at = (s: number) => new Date(receivedAt.getTime() + s * 1000);
  return [
    { ...common, horizonS: 0, price: before, dueAt: at(0), takenAt: at(0) },
    { ...common, horizonS: 60, price: after, dueAt: at(60), takenAt: at(60) },
  ];
}

describe.each(dbTargets())('the scorecard counts retractions apart (%s)', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(target, { NEWS_SOURCES: 'webhook', INGEST_TOKEN: 'test-ingest-token-1234567890' });
    await t.database.db.insert(signalScores).values([
      // A bullish rumour that went the wrong way once retracted, and its bearish denial.
      ...rows(91_001, 'positive', 100, 95),
      ...rows(91_002, 'negative', 100, 95),
      // An ordinary story that called its move.
      ...rows(91_003, 'positive', 100, 102),
    ]);
  });
  afterAll(() => t.close());

  const read = async () => {
    const res = await t.app.inject({ url: '/api/signals/scorecard' });
    expect(res.statusCode).toBe(200);
    return Scorecard.parse(res.json());
  };
  const oneMinute = (g: { horizons: { horizon: string; hits: number; directional: number }[] } | undefined) =>
    g?.horizons.find((h) => h.horizon === '1m');

  it('takes a retracted story and its retraction out of every grouping and into their own', async () => {
    const before = await read();
    expect(before.overall.signals).toBe(3);
    expect(before.by_retraction.map((g) => [g.key, g.signals])).toEqual([
      ['retracted', 0],
      ['retraction', 0],
    ]);

    await t.app.bus.publish('signal.retracted', {
      retractedId: '91001',
      retractionId: '91002',
      kind: 'compromised',
      reason: 'Our account was hacked.',
      receivedAt: new Date().toISOString(),
    });
    const deadline = Date.now() + 5000;
    while ((await t.database.db.select().from(signalScoreRoles)).length < 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));

    const after = await read();
    expect(after.overall.signals).toBe(1);
    expect(oneMinute(after.overall)).toMatchObject({ directional: 1, hits: 1 });
    expect(after.by_sentiment.map((g) => [g.key, g.signals])).toEqual([
      ['positive', 1],
      ['negative', 0],
      ['neutral', 0],
    ]);
    expect(after.by_source.map((g) => [g.key, g.signals])).toEqual([['Wire', 1]]);
    expect(after.by_retraction.map((g) => [g.key, g.signals])).toEqual([
      ['retracted', 1],
      ['retraction', 1],
    ]);
    expect(oneMinute(after.by_retraction[0])).toMatchObject({ directional: 1, hits: 0 });
    expect(oneMinute(after.by_retraction[1])).toMatchObject({ directional: 1, hits: 1 });
  });
});
