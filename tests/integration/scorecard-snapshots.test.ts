import { asc } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Signal } from '../../src/contracts/signals';
import { completed, makeSignal } from '../../src/services/feed/testing/signals';
import { createFakeClock } from '../../src/services/testing/fakeClock';
import type { Database } from '../../server/db/client';
import { signalScores } from '../../server/db/schema/scorecard';
import { ScorecardRepo } from '../../server/modules/scorecard/scorecard.repo';
import { SNAPSHOT_TOLERANCE_MS, Snapshots } from '../../server/modules/scorecard/snapshots';
import { dbTargets, useDatabase } from '../helpers/db';

const T0 = Date.parse('2026-03-02T10:00:00Z');
const MIN = 60_000;

/** A completed signal received at `receivedAt`, with an id of its own. */
let nextId = 1000;
function signalAt(
  receivedAt: number,
  assets: string[],
  prices: Record<string, number>,
  sentiment: 'positive' | 'negative' | 'neutral' = 'positive',
  impact = 85,
): Signal {
  nextId += 1;
  return completed(
    makeSignal(nextId, { received_at: new Date(receivedAt).toISOString() }),
    sentiment,
    impact,
    assets,
    prices,
  );
}

describe.each(dbTargets())('scorecard snapshots on a fake clock (%s)', (name) => {
  const target = useDatabase(name);
  let database: Database;
  beforeAll(async () => {
    database = await target.open();
  });
  afterAll(async () => {
    await database?.close();
    await target.cleanup();
  });

  /** A price taker whose market quotes `prices` (a symbol missing there has no price). */
  function setup(start = T0) {
    const clock = createFakeClock(start);
    const prices = new Map<string, number>([
      ['BTCUSDT', 100],
      ['ETHUSDT', 10],
    ]);
    const asked: string[] = [];
    const market = {
      kind: 'sim' as const,
      price: async (symbol: string) => {
        asked.push(symbol);
        const price = prices.get(symbol);
        if (price === undefined) throw new Error('no price');
        return { price };
      },
    };
    const repo = new ScorecardRepo(database.db);
    const snapshots = new Snapshots({ repo, market, clock, log: { warn: () => undefined } });
    return { clock, prices, asked, snapshots, repo };
  }

  const rowsOf = async (signal: Signal) =>
    (
      await database.db
        .select()
        .from(signalScores)
        .orderBy(asc(signalScores.horizonS), asc(signalScores.asset))
    )
      .filter((r) => r.signalId === Number(signal.id))
      .map((r) => [r.asset, r.horizonS, r.price, r.dueAt.getTime() - Date.parse(signal.received_at)]);

  it('records the price at arrival, then the market price 1, 5 and 30 minutes after arrival', async () => {
    const { clock, prices, snapshots } = setup();
    const s = signalAt(T0, ['BTC', 'ETH'], { BTC: 99 });
    snapshots.follow(s);
    await snapshots.drain();
    expect(await rowsOf(s)).toEqual([['BTC', 0, 99, 0]]);
    expect(snapshots.pending).toBe(3);

    clock.advance(MIN);
    await snapshots.drain();
    prices.set('BTCUSDT', 105);
    clock.advance(4 * MIN);
    await snapshots.drain();
    // The price at arrival the server filled later comes with the signal's next publish.
    snapshots.follow({ ...s, initial_prices: { BTC: 99, ETH: 9.5 } });
    prices.set('BTCUSDT', 90);
    prices.delete('ETHUSDT');
    clock.advance(25 * MIN);
    await snapshots.drain();
    expect(await rowsOf(s)).toEqual([
      ['BTC', 0, 99, 0],
      ['ETH', 0, 9.5, 0],
      ['BTC', 60, 100, MIN],
      ['ETH', 60, 10, MIN],
      ['BTC', 300, 105, 5 * MIN],
      ['ETH', 300, 10, 5 * MIN],
      // No ETH price at 30 minutes: it stays missing rather than being made up.
      ['BTC', 1800, 90, 30 * MIN],
    ]);
    expect(snapshots.pending).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('at start, takes a due price only within the tolerance of its due time and plans the rest', async () => {
    const { clock, asked, snapshots } = setup(T0 + 3_600_000);
    const now = clock.now();
    const justDue = signalAt(now - MIN - SNAPSHOT_TOLERANCE_MS + 1_000, ['BTC'], { BTC: 98 });
    const tooLate = signalAt(now - 2 * MIN, ['ETH'], { ETH: 11 }, 'negative', 40);
    const old = signalAt(now - 40 * MIN, ['BTC'], { BTC: 97 });
    const general = signalAt(now - MIN, [], {});
    expect(await snapshots.catchUp([justDue, tooLate, old, general])).toBe(3);
    await snapshots.drain();
    expect(asked).toEqual(['BTCUSDT']);
    expect(await rowsOf(justDue)).toEqual([
      ['BTC', 0, 98, 0],
      ['BTC', 60, 100, MIN],
    ]);
    expect(await rowsOf(tooLate)).toEqual([['ETH', 0, 11, 0]]);
    expect(await rowsOf(old)).toEqual([]);
    expect(snapshots.pending).toBe(4);

    clock.advance(30 * MIN);
    await snapshots.drain();
    expect((await rowsOf(tooLate)).map((r) => r[1])).toEqual([0, 300, 1800]);
    expect((await rowsOf(justDue)).map((r) => r[1])).toEqual([0, 60, 300, 1800]);
  });

  it('two processes following the same signal on one database write each price once', async () => {
    const a = setup();
    const b = setup();
    const s = signalAt(T0, ['BTC', 'ETH'], { BTC: 99, ETH: 9.9 });
    a.snapshots.follow(s);
    b.snapshots.follow(s);
    // A restarted third one catches up on the same signal and finds its arrival prices stored.
    const c = setup(T0 + MIN);
    await Promise.all([a.snapshots.drain(), b.snapshots.drain()]);
    expect(await c.snapshots.catchUp([s])).toBe(1);
    for (const t of [a, b, c]) t.clock.advance(30 * MIN);
    await Promise.all([a.snapshots.drain(), b.snapshots.drain(), c.snapshots.drain()]);
    const rows = await rowsOf(s);
    expect(rows).toHaveLength(8);
    expect(new Set(rows.map((r) => `${r[0]}|${r[1]}`)).size).toBe(8);
  });

  it('writes the prices at arrival of a burst of headlines later, in one statement, and at stop', async () => {
    const { snapshots, repo } = setup();
    const written: number[] = [];
    const record = repo.record.bind(repo);
    repo.record = (rows) => {
      written.push(rows.length);
      return record(rows);
    };
    const burst = [
      signalAt(T0, ['BTC'], { BTC: 101 }),
      signalAt(T0, ['ETH'], { ETH: 10.1 }),
      signalAt(T0, ['BTC', 'ETH'], { BTC: 102, ETH: 10.2 }),
    ];
    for (const s of burst) snapshots.follow(s);
    // Nothing goes to the database while the headlines' decisions would; a second later, all at once.
    expect(written).toEqual([]);
    await vi.waitFor(() => expect(written).toEqual([4]), { timeout: 5_000, interval: 50 });
    snapshots.follow(signalAt(T0, ['BTC', 'ETH'], { BTC: 103, ETH: 10.3 }));
    await snapshots.stop();
    expect(written).toEqual([4, 2]);
    expect(await rowsOf(burst[2]!)).toEqual([
      ['BTC', 0, 102, 0],
      ['ETH', 0, 10.2, 0],
    ]);
  });

  it('stop cancels every timer and follows nothing more', async () => {
    const { clock, snapshots } = setup();
    snapshots.follow(signalAt(T0, ['BTC'], { BTC: 1 }));
    expect(clock.pendingTimers()).toBe(3);
    await snapshots.stop();
    expect(clock.pendingTimers()).toBe(0);
    snapshots.follow(signalAt(T0, ['ETH'], { ETH: 1 }));
    expect(clock.pendingTimers()).toBe(0);
  });
});
