import { inArray, sql } from 'drizzle-orm';
import { EventType } from '../../../src/contracts/analysis';
import { z } from 'zod';
import type { Db } from '../../db/client';
import type { RetractionRole } from '../../../src/contracts/scorecard';
import { signalScoreRoles, signalScores } from '../../db/schema/scorecard';
import type { CalibrationSample } from './impact-curve';

export type ScoreRow = typeof signalScores.$inferInsert;

/** The grouping a figure belongs to: everything, or one source, sentiment or impact band. */
export type GroupKind = 'all' | 'source' | 'sentiment' | 'impact' | 'retraction';

const count = z.coerce.number().int();
const mean = z.coerce.number().nullable();

/**
 * One aggregate row: a group at one horizon (seconds), or the group over every horizon (`horizon_s`
 * null), where only `signals` is read.
 */
export const ScoreAggregate = z.object({
  kind: z.enum(['all', 'source', 'sentiment', 'impact', 'retraction']),
  key: z.string(),
  horizon_s: z.coerce.number().int().nullable(),
  count,
  signals: count,
  directional: count,
  hits: count,
  mean_move: mean,
  neutral: count,
  neutral_abs_move: mean,
});
export type ScoreAggregate = z.infer<typeof ScoreAggregate>;

export interface ScoreWindow {
  since: Date;
  until: Date;
  /** Only prices of this market source are compared (simulated and real prices never mix). */
  priceSource: string;
  /** News source kinds left out (the premium ones, for a viewer on the free plan). */
  hidden: readonly string[];
}

/** SQL for the scorecard's table; nothing else. */
export class ScorecardRepo {
  constructor(private readonly db: Db) {}

  /** The prices recorded for these signals, by signal id, asset and horizon (seconds after arrival). */
  async pricesOf(signalIds: readonly number[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (signalIds.length === 0) return out;
    const rows = await this.db
      .select({
        signalId: signalScores.signalId,
        asset: signalScores.asset,
        horizonS: signalScores.horizonS,
        price: signalScores.price,
      })
      .from(signalScores)
      .where(inArray(signalScores.signalId, [...signalIds]));
    for (const r of rows) out.set(`${r.signalId}|${r.asset}|${r.horizonS}`, r.price);
    return out;
  }

  /** Inserts the prices not recorded yet (by any process); answers how many were new. */
  async record(rows: readonly ScoreRow[]): Promise<number> {
    if (rows.length === 0) return 0;
    const created = await this.db
      .insert(signalScores)
      .values([...rows])
      .onConflictDoNothing({ target: [signalScores.signalId, signalScores.asset, signalScores.horizonS] })
      .returning({ id: signalScores.signalId });
    return created.length;
  }

  /** Counts signals apart from now on: a retracted story and its retraction (each recorded once). */
  async markRoles(roles: readonly { signalId: number; role: RetractionRole }[]): Promise<void> {
    if (roles.length === 0) return;
    await this.db
      .insert(signalScoreRoles)
      .values([...roles])
      .onConflictDoNothing();
  }

  /** `signal|asset|horizon_s` of every price already recorded for these signals. */
  async recordedKeys(signalIds: readonly number[]): Promise<Set<string>> {
    if (signalIds.length === 0) return new Set();
    const rows = await this.db
      .select({ id: signalScores.signalId, asset: signalScores.asset, h: signalScores.horizonS })
      .from(signalScores)
      .where(inArray(signalScores.signalId, [...signalIds]));
    return new Set(rows.map((r) => `${r.id}|${r.asset}|${r.h}`));
  }

  /**
   * Every later price against the same asset's price at arrival, as a percent move, aggregated per
   * group and horizon, and per group over all horizons (the signal count). The impact bands are the
   * bands of docs/analysis.md, as in `impactBandOf`. A retracted story or a retraction counts in its `retraction` group
   * only, never in the others.
   */
  async aggregates(w: ScoreWindow): Promise<ScoreAggregate[]> {
    const hidden =
      w.hidden.length === 0
        ? sql``
        : sql`and h.source not in (${sql.join(
            w.hidden.map((s) => sql`${s}`),
            sql`, `,
          )})`;
    const result = await this.db.execute(sql`
      select p.kind, p.key, p.horizon_s,
        count(*) as count,
        count(distinct p.signal_id) as signals,
        count(*) filter (where p.sentiment <> 'neutral') as directional,
        count(*) filter (
          where (p.sentiment = 'positive' and p.move > 0) or (p.sentiment = 'negative' and p.move < 0)
        ) as hits,
        avg(case p.sentiment when 'positive' then p.move when 'negative' then -p.move end) as mean_move,
        count(*) filter (where p.sentiment = 'neutral') as neutral,
        avg(abs(p.move)) filter (where p.sentiment = 'neutral') as neutral_abs_move
      from (
        select h.signal_id, h.horizon_s, h.sentiment, (h.price - a.price) / a.price * 100 as move, g.kind, g.key
        from ${signalScores} h
        join ${signalScores} a
          on a.signal_id = h.signal_id and a.asset = h.asset and a.horizon_s = 0
          and a.price_source = h.price_source
        left join ${signalScoreRoles} r on r.signal_id = h.signal_id
        cross join lateral (
          select v.kind, v.key from (values
            ('all', 'all'),
            ('source', h.source_name),
            ('sentiment', h.sentiment),
            ('impact', case when h.impact >= 80 then '80+' when h.impact >= 50 then '50-79' else '<50' end)
          ) as v(kind, key) where r.role is null
          union all
          select 'retraction', r.role where r.role is not null
        ) as g(kind, key)
        where h.horizon_s > 0 and a.price > 0 and h.price_source = ${w.priceSource}
          and h.received_at >= ${w.since.toISOString()} and h.received_at < ${w.until.toISOString()}
          ${hidden}
      ) p
      group by grouping sets ((p.kind, p.key, p.horizon_s), (p.kind, p.key))
    `);
    const rows = (result as unknown as { rows: unknown[] }).rows;
    return z.array(ScoreAggregate).parse(rows);
  }

  /**
   * What the impact calibration learns from: per signal of a known event type received since `since`
   * on `priceSource`'s prices (retracted stories and retractions left out), the raw score and the
   * |move| % of its primary asset at 30 minutes, or at 5 where the 30-minute price is missing.
   */
  async calibrationSamples(priceSource: string, since: Date, limit: number): Promise<CalibrationSample[]> {
    const result = await this.db.execute(sql`
      select a.event_type, coalesce(a.impact_raw, a.impact) as score,
        abs(coalesce(m30.price, m5.price) - a.price) / a.price * 100 as move
      from ${signalScores} a
      left join ${signalScores} m30 on m30.signal_id = a.signal_id and m30.asset = a.asset
        and m30.horizon_s = 1800 and m30.price_source = a.price_source
      left join ${signalScores} m5 on m5.signal_id = a.signal_id and m5.asset = a.asset
        and m5.horizon_s = 300 and m5.price_source = a.price_source
      left join ${signalScoreRoles} r on r.signal_id = a.signal_id
      where a.horizon_s = 0 and a.price > 0 and a.price_source = ${priceSource}
        and a.event_type is not null and a.asset = a.primary_asset and r.role is null
        and coalesce(m30.price, m5.price) is not null
        and a.received_at >= ${since.toISOString()}
      order by a.received_at desc
      limit ${limit}
    `);
    const rows = z
      .array(z.object({ event_type: z.string(), score: z.coerce.number(), move: z.coerce.number() }))
      .parse((result as unknown as { rows: unknown[] }).rows);
    return rows.flatMap((r) => {
      const type = EventType.safeParse(r.event_type);
      return type.success ? [{ eventType: type.data, score: r.score, move: r.move }] : [];
    });
  }
}
