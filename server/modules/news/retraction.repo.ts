import { and, asc, desc, eq, gte, inArray, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Dispute } from '../../../src/contracts/signals';
import type { Db } from '../../db/client';
import { signals } from '../../db/schema/news';

/** A stored signal (news.repo.ts's `SignalRow`). */
type Row = typeof signals.$inferSelect;

export type AnalysisColumns = Pick<
  Row,
  | 'asset'
  | 'assets'
  | 'eventType'
  | 'impactScore'
  | 'impactRaw'
  | 'sentiment'
  | 'reasoning'
  | 'engine'
  | 'engineVersion'
  | 'disagreement'
  | 'initialPrices'
  | 'analysedAt'
>;

/** Every change of a signal takes the next `rev`: readers follow the store's changes in that order. */
export const nextRev = sql`nextval('signals_rev_seq')`;

/** What a retracted signal records of the signal that retracts it. */
export interface RetractionMark {
  by: number;
  at: Date;
  reason: string;
  kind: string;
}

/** A retraction's or a dispute's mark, as a later report of the same story inherits it. */
export type InheritedMark = Partial<
  Pick<Row, 'retractedBy' | 'retractedAt' | 'retractionReason' | 'retractionKind' | 'dispute'>
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

/** Thrown inside a transaction to roll it back when one of its updates did not apply. */
class NotApplied extends Error {}

/**
 * SQL for the completion of analysed signals and for the marks retractions and disputes leave on the
 * stories they take back: what `Retractions` stores. The rest of the signal store is news.repo.ts.
 */
export class RetractionRepo {
  constructor(private readonly db: Db) {}

  /** Completes a signal still `analyzing`; null when it was not (done already, by this node or another). */
  async complete(
    id: number,
    analysis: AnalysisColumns & Partial<Pick<Row, 'retractsId'>> & InheritedMark,
  ): Promise<Row | null> {
    const [row] = await this.db
      .update(signals)
      .set({ ...analysis, status: 'completed', rev: nextRev })
      .where(and(eq(signals.id, id), eq(signals.status, 'analyzing')))
      .returning();
    return row ?? null;
  }

  /**
   * Completed signals a retraction may retract: earlier than it, received since `since`, neither
   * retracted already nor retractions themselves; with one of its assets, none, or from one of the
   * accounts it names. Newest first.
   */
  async retractionCandidates(q: CandidateQuery): Promise<Row[]> {
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
  ): Promise<{ done: Row; retracted: Row } | null> {
    try {
      return await this.db.transaction(async (tx) => {
        const repo = new RetractionRepo(tx);
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
  ): Promise<{ done: Row; disputed: Row } | null> {
    try {
      return await this.db.transaction(async (tx) => {
        const repo = new RetractionRepo(tx);
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
  async markDisputed(id: number, dispute: Dispute): Promise<Row | null> {
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
  async markedStories(q: { before: number; since: Date; assets: readonly string[] }): Promise<Row[]> {
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
  async disputedBy(retractionId: number, since: Date): Promise<Row[]> {
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
  ): Promise<{ retraction: Row | null; retracted: Row[] }> {
    return this.db.transaction(async (tx) => {
      const repo = new RetractionRepo(tx);
      const retracted: Row[] = [];
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
  async markRetracted(id: number, mark: RetractionMark): Promise<Row | null> {
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
}
