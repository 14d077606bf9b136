import { and, asc, desc, eq, gt, gte, inArray, isNull, lt, notInArray, or, sql, type SQL } from 'drizzle-orm';
import type { Dispute, SignalsQuery } from '../../../src/contracts/signals';
import type { AlsoReportedBy } from '../../../src/contracts/signals';
import { insertRows, rowsOf } from '../../db/batch';
import type { Db } from '../../db/client';
import { signals } from '../../db/schema/news';

export type SignalRow = typeof signals.$inferSelect;
export type NewSignalRow = Omit<typeof signals.$inferInsert, 'id' | 'rev'>;
export type AnalysisColumns = Pick<
  SignalRow,
  | 'asset'
  | 'assets'
  | 'eventType'
  | 'impactScore'
  | 'sentiment'
  | 'reasoning'
  | 'engine'
  | 'engineVersion'
  | 'disagreement'
  | 'initialPrices'
  | 'analysedAt'
>;

const nextRev = sql`nextval('signals_rev_seq')`;

/** What a retracted signal records of the signal that retracts it. */
export interface RetractionMark {
  by: number;
  at: Date;
  reason: string;
  kind: string;
}

/** A retraction's or a dispute's mark, as a later report of the same story inherits it. */
export type InheritedMark = Partial<
  Pick<SignalRow, 'retractedBy' | 'retractedAt' | 'retractionReason' | 'retractionKind' | 'dispute'>
>;

/** Where a retraction looks for the story it retracts. */
export interface CandidateQuery {
  /** The retraction's id: only earlier signals qualify. */
  before: number;
  since: Date;
  /** The retraction's assets: a story naming one of them, or none, qualifies. */
  assets: readonly string[];
  /** Lower-case account names the retraction comes from or names: their posts qualify. */
  accounts: readonly string[];
  limit: number;
}

/** One source's lag figures (`sourceLags`). */
export interface SourceLagRow {
  source: string;
  items: number;
  p50: number | null;
  p95: number | null;
  last: Date | null;
}

/** Thrown inside a transaction to roll it back when one of its updates did not apply. */
class NotApplied extends Error {}

/** SQL for the signal store; nothing else. */
export class NewsRepo {
  constructor(private readonly db: Db) {}

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

  /** Completes a signal still `analyzing`; null when it was not (done already, by this node or another). */
  async complete(
    id: number,
    analysis: AnalysisColumns & Partial<Pick<SignalRow, 'retractsId'>> & InheritedMark,
  ): Promise<SignalRow | null> {
    const [row] = await this.db
      .update(signals)
      .set({ ...analysis, status: 'completed', rev: nextRev })
      .where(and(eq(signals.id, id), eq(signals.status, 'analyzing')))
      .returning();
    return row ?? null;
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

  /**
   * Completed signals a retraction may retract: earlier than it, received since `since`, neither
   * retracted already nor retractions themselves; with one of its assets, none, or from one of the
   * accounts it names. Newest first.
   */
  async retractionCandidates(q: CandidateQuery): Promise<SignalRow[]> {
    const reach: SQL[] = [sql`${signals.assets} = '[]'::jsonb`];
    if (q.assets.length > 0)
      reach.push(
        sql`${signals.assets} ?| array[${sql.join(
          q.assets.map((a) => sql`${a}`),
          sql`, `,
        )}]::text[]`,
      );
    if (q.accounts.length > 0) reach.push(inArray(sql`lower(${signals.username})`, [...q.accounts]));
    const where = [
      eq(signals.status, 'completed'),
      lt(signals.id, q.before),
      gte(signals.receivedAt, q.since),
      isNull(signals.retractedBy),
      isNull(signals.retractsId),
    ];
    // A retraction without assets may speak of any recent story.
    if (q.assets.length > 0) where.push(or(...reach) as SQL);
    return this.db
      .select()
      .from(signals)
      .where(and(...where))
      .orderBy(desc(signals.id))
      .limit(q.limit);
  }

  /**
   * Completes a retraction and marks the signal it retracts, in one transaction; null when either does
   * not apply (the retraction was completed already, or the story was retracted by another signal).
   */
  async completeRetraction(
    id: number,
    analysis: AnalysisColumns,
    target: number,
    mark: RetractionMark,
  ): Promise<{ done: SignalRow; retracted: SignalRow } | null> {
    try {
      return await this.db.transaction(async (tx) => {
        const repo = new NewsRepo(tx);
        const done = await repo.complete(id, { ...analysis, retractsId: target });
        const retracted = done === null ? null : await repo.markRetracted(target, mark);
        if (done === null || retracted === null) throw new NotApplied();
        return { done, retracted };
      });
    } catch (err) {
      if (err instanceof NotApplied) return null;
      throw err;
    }
  }

  /**
   * Completes a retraction from a less trusted source and marks the story it disputes, in one
   * transaction; null when either does not apply (completed already, or the story is retracted or
   * disputed already).
   */
  async completeDispute(
    id: number,
    analysis: AnalysisColumns,
    target: number,
    dispute: Dispute,
  ): Promise<{ done: SignalRow; disputed: SignalRow } | null> {
    try {
      return await this.db.transaction(async (tx) => {
        const repo = new NewsRepo(tx);
        const done = await repo.complete(id, analysis);
        const disputed = done === null ? null : await repo.markDisputed(target, dispute);
        if (done === null || disputed === null) throw new NotApplied();
        return { done, disputed };
      });
    } catch (err) {
      if (err instanceof NotApplied) return null;
      throw err;
    }
  }

  /** Marks a signal disputed, once, while it is not retracted: null otherwise. */
  async markDisputed(id: number, dispute: Dispute): Promise<SignalRow | null> {
    const [row] = await this.db
      .update(signals)
      .set({ dispute, rev: nextRev })
      .where(and(eq(signals.id, id), isNull(signals.retractedBy), isNull(signals.dispute)))
      .returning();
    return row ?? null;
  }

  /**
   * Stories retracted or disputed that arrived since `since`, before `before`, naming one of `assets`:
   * what a new report of one of them inherits. Newest first, by the index of the marked ones.
   */
  async markedStories(q: { before: number; since: Date; assets: readonly string[] }): Promise<SignalRow[]> {
    if (q.assets.length === 0) return [];
    return this.db
      .select()
      .from(signals)
      .where(
        and(
          sql`(${signals.retractedBy} is not null or ${signals.dispute} is not null)`,
          gte(signals.receivedAt, q.since),
          lt(signals.id, q.before),
          sql`${signals.assets} ?| array[${sql.join(
            q.assets.map((a) => sql`${a}`),
            sql`, `,
          )}]::text[]`,
        ),
      )
      .orderBy(desc(signals.id))
      .limit(50);
  }

  /**
   * The stories `retractionId` disputes and nothing retracted: the one it was linked to and the later
   * reports of it that inherited the dispute, received since `since`. Oldest first, by the index of the
   * marked ones.
   */
  async disputedBy(retractionId: number, since: Date): Promise<SignalRow[]> {
    return this.db
      .select()
      .from(signals)
      .where(
        and(
          sql`${signals.dispute} is not null`,
          sql`${signals.dispute} ->> 'signal_id' = ${String(retractionId)}`,
          isNull(signals.retractedBy),
          gte(signals.receivedAt, since),
        ),
      )
      .orderBy(asc(signals.id))
      .limit(50);
  }

  /**
   * Retracts, in one transaction, the stories a retraction only disputed (each once: one retracted
   * meanwhile is left as it is), and links the retraction to the first of them when it links nothing
   * yet. Answers what changed.
   */
  async retractDisputed(
    retractionId: number,
    marks: readonly { id: number; mark: RetractionMark }[],
  ): Promise<{ retraction: SignalRow | null; retracted: SignalRow[] }> {
    return this.db.transaction(async (tx) => {
      const repo = new NewsRepo(tx);
      const retracted: SignalRow[] = [];
      for (const { id, mark } of marks) {
        const row = await repo.markRetracted(id, mark);
        if (row !== null) retracted.push(row);
      }
      const first = retracted[0];
      if (first === undefined) return { retraction: null, retracted };
      const [retraction] = await tx
        .update(signals)
        .set({ retractsId: first.id, rev: nextRev })
        .where(and(eq(signals.id, retractionId), isNull(signals.retractsId)))
        .returning();
      return { retraction: retraction ?? null, retracted };
    });
  }

  /** Marks a signal retracted, once: null when it was retracted already. */
  async markRetracted(id: number, mark: RetractionMark): Promise<SignalRow | null> {
    const [row] = await this.db
      .update(signals)
      .set({
        retractedBy: mark.by,
        retractedAt: mark.at,
        retractionReason: mark.reason,
        retractionKind: mark.kind,
        rev: nextRev,
      })
      .where(and(eq(signals.id, id), isNull(signals.retractedBy)))
      .returning();
    return row ?? null;
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
