import { and, asc, desc, eq, gt, gte, inArray, lt, notInArray, or, sql, type SQL } from 'drizzle-orm';
import type { SignalsQuery } from '../../../src/contracts/signals';
import type { AlsoReportedBy } from '../../../src/contracts/signals';
import { insertRows, rowsOf } from '../../db/batch';
import type { Db } from '../../db/client';
import { signals } from '../../db/schema/news';
import { nextRev, RetractionRepo } from './retraction.repo';

export type SignalRow = typeof signals.$inferSelect;
export type NewSignalRow = Omit<typeof signals.$inferInsert, 'id' | 'rev'>;

/** One source's lag figures (`sourceLags`). */
export interface SourceLagRow {
  source: string;
  items: number;
  p50: number | null;
  p95: number | null;
  last: Date | null;
}

/**
 * SQL for the signal store; nothing else. Completing an analysed signal and the retractions' marks are
 * its `retractions` (retraction.repo.ts).
 */
export class NewsRepo {
  readonly retractions: RetractionRepo;

  constructor(private readonly db: Db) {
    this.retractions = new RetractionRepo(db);
  }

  /**
   * The new row, stored in the statement that looks for a copy: null when the store holds one, an item
   * the source delivered with this external id (ever) or one with this text received at or after
   * `since` (what {@link hasCopy} asks, without a statement of its own in front of the insert).
   */
  async insertUnlessCopy(row: NewSignalRow, since: Date): Promise<SignalRow | null> {
    const result = await this.db.execute(
      insertRows(signals, [row], {
        unless: sql`select 1 from ${signals} where ${signals.fingerprint} = ${row.fingerprint} and ${signals.receivedAt} >= ${since}`,
        onConflictDoNothing: [signals.source, signals.externalId],
        conflictWhere: sql`${signals.externalId} is not null`,
        returning: 'all',
      }),
    );
    return rowsOf(signals, result)[0] ?? null;
  }

  /**
   * Whether a copy is stored, in one statement: an item the source delivered with this external id (ever),
   * or one with this fingerprint received at or after `since`.
   */
  async hasCopy(
    source: string,
    externalId: string | null,
    fingerprint: string,
    since: Date,
  ): Promise<boolean> {
    const sameText = sql`${signals.fingerprint} = ${fingerprint} and ${signals.receivedAt} >= ${since}`;
    const rows = await this.db
      .select({ id: signals.id })
      .from(signals)
      .where(
        externalId === null
          ? sameText
          : or(sql`${signals.source} = ${source} and ${signals.externalId} = ${externalId}`, sameText),
      )
      .limit(1);
    return rows.length > 0;
  }

  async receivedSince(since: Date, limit: number): Promise<SignalRow[]> {
    return this.db
      .select()
      .from(signals)
      .where(gte(signals.receivedAt, since))
      .orderBy(asc(signals.id))
      .limit(limit);
  }

  /**
   * Sets the price at arrival of one asset of a completed signal that has none yet; null when it already
   * has one (filled by this node or another) or the signal is not completed.
   */
  async fillInitialPrice(id: number, ticker: string, price: number): Promise<SignalRow | null> {
    const [row] = await this.db
      .update(signals)
      .set({
        initialPrices: sql`${signals.initialPrices} || jsonb_build_object(${ticker}::text, ${price}::float8)`,
        rev: nextRev,
      })
      .where(
        and(
          eq(signals.id, id),
          eq(signals.status, 'completed'),
          sql`(${signals.initialPrices} -> ${ticker}::text) is null`,
        ),
      )
      .returning();
    return row ?? null;
  }

  /** Signals stored but never analysed (the process stopped in between), oldest first. */
  async unfinished(limit: number): Promise<SignalRow[]> {
    return this.db
      .select()
      .from(signals)
      .where(eq(signals.status, 'analyzing'))
      .orderBy(asc(signals.id))
      .limit(limit);
  }

  async addAlsoReported(id: number, entry: AlsoReportedBy): Promise<SignalRow | null> {
    const [row] = await this.db
      .update(signals)
      .set({
        alsoReportedBy: sql`${signals.alsoReportedBy} || ${JSON.stringify([entry])}::jsonb`,
        rev: nextRev,
      })
      .where(eq(signals.id, id))
      .returning();
    return row ?? null;
  }

  /** Newest first, with the history filters; `hidden` sources are left out (premium ones for free users). */
  async list(query: SignalsQuery, hidden: readonly string[] = []): Promise<SignalRow[]> {
    const where: SQL[] = [];
    if (hidden.length > 0) where.push(notInArray(signals.source, [...hidden]));
    if (query.before !== undefined) where.push(lt(signals.id, Number(query.before)));
    if (query.asset !== undefined)
      where.push(sql`${signals.assets} @> ${JSON.stringify([query.asset])}::jsonb`);
    if (query.sentiment !== undefined) where.push(eq(signals.sentiment, query.sentiment));
    if (query.min_impact !== undefined) where.push(gte(signals.impactScore, query.min_impact));
    return this.db
      .select()
      .from(signals)
      .where(where.length > 0 ? and(...where) : undefined)
      .orderBy(desc(signals.id))
      .limit(query.limit);
  }

  /** The latest `limit` signals that changed after `rev`, oldest change first. */
  async changedSince(rev: number, limit: number): Promise<SignalRow[]> {
    const rows = await this.db
      .select()
      .from(signals)
      .where(gt(signals.rev, rev))
      .orderBy(desc(signals.rev))
      .limit(limit);
    return rows.reverse();
  }

  /**
   * The ids and revs of completed signals changed after `rev`, oldest change first: a reader that has
   * most of them already reads the rows it lacks with {@link byIds}.
   */
  async completedRevsAfter(rev: number, limit: number): Promise<{ id: number; rev: number }[]> {
    return this.db
      .select({ id: signals.id, rev: signals.rev })
      .from(signals)
      .where(and(gt(signals.rev, rev), eq(signals.status, 'completed')))
      .orderBy(asc(signals.rev))
      .limit(limit);
  }

  /** The signals of these ids (those that exist), in no particular order. */
  async byIds(ids: readonly number[]): Promise<SignalRow[]> {
    if (ids.length === 0) return [];
    return this.db
      .select()
      .from(signals)
      .where(inArray(signals.id, [...ids]));
  }

  /** Completed signals received in `[from, to)`, oldest first (the rules' backtest). */
  async completedBetween(from: Date, to: Date, limit: number): Promise<SignalRow[]> {
    return this.db
      .select()
      .from(signals)
      .where(and(eq(signals.status, 'completed'), gte(signals.receivedAt, from), lt(signals.receivedAt, to)))
      .orderBy(asc(signals.receivedAt))
      .limit(limit);
  }

  async oldestReceived(): Promise<Date | null> {
    const [row] = await this.db.select({ at: sql<string | null>`min(${signals.receivedAt})` }).from(signals);
    return row?.at ? new Date(row.at) : null;
  }

  /** Signals stored per source: in all, and received since `since`. */
  async countsBySource(since: Date): Promise<{ source: string; total: number; recent: number }[]> {
    const rows = await this.db
      .select({
        source: signals.source,
        total: sql<string>`count(*)`,
        recent: sql<string>`count(*) filter (where ${signals.receivedAt} >= ${since.toISOString()})`,
      })
      .from(signals)
      .groupBy(signals.source)
      .orderBy(asc(signals.source));
    return rows.map((r) => ({ source: r.source, total: Number(r.total), recent: Number(r.recent) }));
  }

  /**
   * Per source: items received since `hour`, the 50th and 95th percentile of publication-to-arrival lag
   * (ms) over those that said when they were published (not backlog, not published in the future), and
   * the newest item's arrival since `since`.
   */
  async sourceLags(hour: Date, since: Date): Promise<SourceLagRow[]> {
    const lag = sql`greatest(0, extract(epoch from (${signals.receivedAt} - ${signals.publishedAt})) * 1000)`;
    const recent = sql`${signals.receivedAt} >= ${hour.toISOString()}`;
    const timed = sql`${recent} and not ${signals.backlog} and ${signals.publishedAt} is not null
      and ${signals.publishedAt} <= ${signals.receivedAt} + interval '5 seconds'`;
    const rows = await this.db
      .select({
        source: signals.source,
        items: sql<string>`count(*) filter (where ${recent})`,
        p50: sql<string | null>`percentile_cont(0.5) within group (order by ${lag}) filter (where ${timed})`,
        p95: sql<string | null>`percentile_cont(0.95) within group (order by ${lag}) filter (where ${timed})`,
        last: sql<string | null>`max(${signals.receivedAt})`,
      })
      .from(signals)
      .where(gte(signals.receivedAt, since))
      .groupBy(signals.source);
    return rows.map((r) => ({
      source: r.source,
      items: Number(r.items),
      p50: r.p50 === null ? null : Number(r.p50),
      p95: r.p95 === null ? null : Number(r.p95),
      last: r.last === null ? null : new Date(r.last),
    }));
  }

  async headRev(): Promise<number> {
    const [row] = await this.db.select({ rev: sql<string | null>`max(${signals.rev})` }).from(signals);
    return Number(row?.rev ?? 0);
  }
}
