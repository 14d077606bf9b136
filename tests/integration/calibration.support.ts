import type { EventType } from '../../src/contracts/analysis';
import type { TestDatabase } from '../helpers/db';
import { signalScores } from '../../server/db/schema/scorecard';
import type { ScoreRow } from '../../server/modules/scorecard/scorecard.repo';
import { scoreToMove } from '../../server/modules/scorecard/impact-curve';

/** One recorded signal's outcome: its type, raw score and the primary asset's move at 30 minutes (%). */
export interface Outcome {
  eventType: EventType;
  score: number;
  move: number;
  /** Only the 5-minute price recorded (no 30-minute one). */
  fiveOnly?: boolean;
}

/**
 * Outcomes as the market gave them: listings moved about three times what their scores promised over
 * half an hour, partnerships a tenth, hacks a few samples only. Moves are a share of the day-scale move
 * each score stands for, with a fixed wobble so that the curves are not straight lines.
 */
export function marketOutcomes(): Outcome[] {
  return [
    ...series('listing', 60, 40, 85, 0.3),
    ...series('partnership', 60, 15, 55, 0.03),
    ...series('hack', 8, 40, 80, 0.1),
  ];
}

const wobble = (i: number) => 0.6 + ((i * 37) % 10) / 12.5;

/** `n` outcomes of a type at scores spread over [lo, hi], each moving `share` of what its score promised. */
export function series(eventType: EventType, n: number, lo: number, hi: number, share: number): Outcome[] {
  return Array.from({ length: n }, (_, i) => {
    const score = Math.round(lo + ((hi - lo) * i) / Math.max(1, n - 1));
    return { eventType, score, move: scoreToMove(score) * share * wobble(i), fiveOnly: i % 7 === 0 };
  });
}

const BASE_ID = 70_000;

/** The scorecard's rows for these outcomes: arrival, 5 and (unless `fiveOnly`) 30 minutes, plus another asset. */
export function rowsOf(
  outcomes: readonly Outcome[],
  priceSource: 'sim' | 'binance',
  now: number,
  firstId = BASE_ID,
): ScoreRow[] {
  return outcomes.flatMap((o, i) => {
    const receivedAt = new Date(now - 3_600_000 - i * 60_000);
    const at = (s: number) => new Date(receivedAt.getTime() + s * 1000);
    const facts = {
      signalId: firstId + i,
      priceSource,
      receivedAt,
      source: 'replay',
      sourceName: 'Wire',
      sentiment: 'positive' as const,
      impact: o.score,
      impactRaw: o.score,
      eventType: o.eventType,
      primaryAsset: 'SOL',
    };
    const row = (asset: string, horizonS: number, price: number): ScoreRow => ({
      ...facts,
      asset,
      horizonS,
      price,
      dueAt: at(horizonS),
      takenAt: at(horizonS),
    });
    const moved = 100 * (1 + o.move / 100);
    return [
      row('SOL', 0, 100),
      row('SOL', 300, o.fiveOnly === true ? moved : 100 + o.move / 10),
      ...(o.fiveOnly === true ? [] : [row('SOL', 1800, moved)]),
      // Another tagged asset that moved wildly: not the primary one, never a sample.
      row('BTC', 0, 100),
      row('BTC', 1800, 150),
    ];
  });
}

/** `target` with the outcomes recorded before the app opens it (as a process that ran before left them). */
export function seeded(target: TestDatabase, rows: readonly ScoreRow[]): TestDatabase {
  return {
    ...target,
    async open(opts) {
      const database = await target.open(opts);
      for (let i = 0; i < rows.length; i += 500) {
        await database.db.insert(signalScores).values(rows.slice(i, i + 500));
      }
      return database;
    },
  };
}
