import { and, eq, lte, sql, type SQL } from 'drizzle-orm';
import type { DecisionRow, DecisionUpdate } from './rules.types';
import { ruleDecisions } from '../../db/schema/rules';
import { RiskRepo } from './risk.repo';

/**
 * SQL for the exits of the positions rules opened: the exit columns of the decision ledger, each exit
 * open → closing → closed in conditional writes (the exit watcher's side of the lifecycle). It extends
 * the risk envelope's queries only to stack the module's repo (see `RulesRepo`).
 */
export class ExitsRepo extends RiskRepo {
  /**
   * Positions rules opened whose exits are open: one user's (all of them, for flatten), or every user's
   * that have a reason to close, which is what the exit watcher keeps in memory: a plan to watch, a close
   * that began and is to be tried again, or a retracted story to unwind (unless its rule keeps them).
   */
  async openExits(userId?: string): Promise<DecisionRow[]> {
    const d = ruleDecisions;
    const where = [eq(d.exitState, 'open')];
    if (userId !== undefined) where.push(eq(d.userId, userId));
    else
      where.push(
        sql`(${d.exitPlan} is not null or ${d.exitReason} is not null or (${d.retractedBy} is not null and coalesce(${d.exitPlan} ->> 'on_retraction', 'close') <> 'keep'))`,
      );
    return this.db
      .select()
      .from(d)
      .where(and(...where));
  }

  /** Exits left closing since before `before`: a process died mid-close (no close lasts that long). */
  async staleExits(before: Date): Promise<DecisionRow[]> {
    return this.db
      .select()
      .from(ruleDecisions)
      .where(and(eq(ruleDecisions.exitState, 'closing'), lte(ruleDecisions.exitStartedAt, before)))
      .limit(500);
  }

  /**
   * Claims an open exit for a close, in one conditional write: open → closing, only once its back-off
   * has passed (unless `force`). Of processes racing for it one gets the row back, the others null. The
   * close's reason and client order id are kept from its first claim: every try is the same close.
   */
  async claimExit(
    id: number,
    claim: { now: Date; reason: string; clientId: string; force: boolean },
  ): Promise<DecisionRow | null> {
    const d = ruleDecisions;
    const where = [eq(d.id, id), eq(d.exitState, 'open')];
    if (!claim.force)
      where.push(
        sql`(${d.exitNextAt} is null or ${d.exitNextAt} <= ${claim.now.toISOString()}::timestamptz)`,
      );
    const [row] = await this.db
      .update(d)
      .set({
        exitState: 'closing',
        exitStartedAt: claim.now,
        exitReason: sql`coalesce(${d.exitReason}, ${claim.reason})`,
        exitClientId: sql`coalesce(${d.exitClientId}, ${claim.clientId})`,
        exitNote: sql`coalesce(${d.exitReason}, ${claim.reason}) || '; closing'`,
      })
      .where(and(...where))
      .returning();
    return row ?? null;
  }

  /** Takes over a close claimed before `staleBefore` and never finished (its process died): the row, or null. */
  async takeOverExit(id: number, now: Date, staleBefore: Date): Promise<DecisionRow | null> {
    const d = ruleDecisions;
    const [row] = await this.db
      .update(d)
      .set({ exitStartedAt: now })
      .where(and(eq(d.id, id), eq(d.exitState, 'closing'), lte(d.exitStartedAt, staleBefore)))
      .returning();
    return row ?? null;
  }

  /**
   * Marks a close done (the venue confirmed its fill, or that nothing was left), only for the claim made
   * at `claimedAt`: false when another process took the close over since.
   */
  async completeExit(id: number, claimedAt: Date, set: DecisionUpdate): Promise<boolean> {
    const done = await this.db
      .update(ruleDecisions)
      .set({ ...set, exitState: 'closed', exitNextAt: null })
      .where(this.heldClose(id, claimedAt))
      .returning({ id: ruleDecisions.id });
    return done.length > 0;
  }

  /**
   * A try of the close that failed: back to open, one more failed try counted, not tried again before
   * `nextAt`. The row as it is now, or null when the claim of `claimedAt` no longer holds it.
   */
  async releaseExit(
    id: number,
    claimedAt: Date,
    set: { note: string; nextAt: Date },
  ): Promise<DecisionRow | null> {
    const [row] = await this.db
      .update(ruleDecisions)
      .set({
        exitState: 'open',
        exitAttempts: sql`${ruleDecisions.exitAttempts} + 1`,
        exitNextAt: set.nextAt,
        exitNote: set.note,
        exitStartedAt: null,
      })
      .where(this.heldClose(id, claimedAt))
      .returning();
    return row ?? null;
  }

  /** The close's next client order id (the venue ended the previous order unfilled); false when not held. */
  async renewExitClientId(id: number, claimedAt: Date, clientId: string): Promise<boolean> {
    const done = await this.db
      .update(ruleDecisions)
      .set({ exitClientId: clientId })
      .where(this.heldClose(id, claimedAt))
      .returning({ id: ruleDecisions.id });
    return done.length > 0;
  }

  /** Changes an open exit's note from `from` to `to` (why its price triggers wait), only while it is so. */
  async noteOpenExit(id: number, from: string | null, to: string | null): Promise<boolean> {
    const d = ruleDecisions;
    const done = await this.db
      .update(d)
      .set({ exitNote: to })
      .where(
        and(
          eq(d.id, id),
          eq(d.exitState, 'open'),
          from === null ? sql`${d.exitNote} is null` : eq(d.exitNote, from),
        ),
      )
      .returning({ id: d.id });
    return done.length > 0;
  }

  /** The close of `id` still held by the claim made at `claimedAt`. */
  private heldClose(id: number, claimedAt: Date): SQL | undefined {
    return and(
      eq(ruleDecisions.id, id),
      eq(ruleDecisions.exitState, 'closing'),
      eq(ruleDecisions.exitStartedAt, claimedAt),
    );
  }
}
