import { and, desc, eq, sql } from 'drizzle-orm';
import { EventType } from '../../../src/contracts/analysis';
import type { MarketSourceKind } from '../../../src/contracts/market';
import type { Db } from '../../db/client';
import { impactCalibrations } from '../../db/schema/scorecard';
import type { CalibrationFit } from './impact-curve';
import { ScorecardRepo } from './scorecard.repo';

/** Advisory-lock key serialising the impact calibration's fits (any constant unique in the app). */
const FIT_LOCK = 7_300_317;

/** SQL for the impact calibrations table; nothing else. */
export class CalibrationRepo {
  constructor(private readonly db: Db) {}

  /**
   * Runs `work` in a transaction holding a lock every process shares, with this repo and the scorecard's
   * on it: one fit at a time, and each sees what the one before it stored.
   */
  exclusive<T>(work: (repos: { store: CalibrationRepo; scores: ScorecardRepo }) => Promise<T>): Promise<T> {
    return this.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${FIT_LOCK}::bigint)`);
      return work({ store: new CalibrationRepo(tx), scores: new ScorecardRepo(tx) });
    });
  }

  /** The latest fit stored for this market source, or null before the first. */
  async latest(priceSource: MarketSourceKind): Promise<CalibrationFit | null> {
    const rows = await this.db
      .select()
      .from(impactCalibrations)
      .where(eq(impactCalibrations.priceSource, priceSource))
      .orderBy(desc(impactCalibrations.fittedAt));
    const first = rows[0];
    if (first === undefined) return null;
    const at = first.fittedAt.getTime();
    const types = rows
      .filter((r) => r.fittedAt.getTime() === at)
      .flatMap((r) => {
        const type = EventType.safeParse(r.eventType);
        return type.success ? [{ eventType: type.data, samples: r.sampleCount, points: r.points }] : [];
      });
    types.sort((a, b) => EventType.options.indexOf(a.eventType) - EventType.options.indexOf(b.eventType));
    return { priceSource, horizonS: first.horizonS, ratio: first.ratio, fittedAt: first.fittedAt, types };
  }

  /** Replaces this source's fit by `fit` (its types only: a type no longer seen goes). */
  async replace(fit: CalibrationFit): Promise<void> {
    await this.db.delete(impactCalibrations).where(and(eq(impactCalibrations.priceSource, fit.priceSource)));
    if (fit.types.length === 0) return;
    await this.db.insert(impactCalibrations).values(
      fit.types.map((t) => ({
        priceSource: fit.priceSource,
        eventType: t.eventType,
        horizonS: fit.horizonS,
        points: t.points,
        sampleCount: t.samples,
        ratio: fit.ratio,
        fittedAt: fit.fittedAt,
      })),
    );
  }
}
