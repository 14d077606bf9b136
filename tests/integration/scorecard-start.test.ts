import { afterAll, describe, expect, it } from 'vitest';
import { signals } from '../../server/db/schema/news';
import { signalScores } from '../../server/db/schema/scorecard';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase, type TestDatabase } from '../helpers/db';

describe.each(dbTargets())('the scorecard at start (%s)', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  afterAll(() => t?.close());

  it('catches up on the prices that fell due while no process ran, within the tolerance only', async () => {
    const now = Date.now();
    const stored = (id: number, content: string, agoMs: number) => ({
      id,
      source: 'replay',
      fingerprint: `fp-${id}`,
      content,
      sourceName: 'Wire',
      mediaUrls: [],
      receivedAt: new Date(now - agoMs),
      status: 'completed' as const,
      asset: 'BTC',
      assets: ['BTC'],
      impactScore: 70,
      sentiment: 'positive',
      reasoning: 'r',
      engine: 'local',
      initialPrices: { BTC: 100_000 },
      alsoReportedBy: [],
    });
    // Stored by a process that stopped: one whose 1-minute price is due just now, one long past it.
    const seeded: TestDatabase = {
      ...target,
      async open() {
        const database = await target.open();
        await database.db
          .insert(signals)
          .values([
            stored(1, 'Bitcoin ETF inflows hit a record', 65_000),
            stored(2, 'Bitcoin miners sell', 200_000),
          ]);
        return database;
      },
    };
    t = await startTestApp(seeded, { NEWS_SOURCES: 'webhook' });
    await t.api.snapshots.drain();
    const rows = await t.database.db.select().from(signalScores);
    const of = (id: number) =>
      rows
        .filter((r) => r.signalId === id)
        .map((r) => r.horizonS)
        .sort((a, b) => a - b);
    expect(of(1)).toEqual([0, 60]);
    expect(of(2)).toEqual([0]);
    expect(rows.find((r) => r.signalId === 1 && r.horizonS === 60)?.price).toBeGreaterThan(0);
    // Both are still followed for their 5- and 30-minute prices.
    expect(t.api.snapshots.pending).toBe(4);
  });
});
