import { and, desc, eq, gt, inArray, lt, lte, sql, type SQL } from 'drizzle-orm';
import { arrayOf, Batcher, completeRow, insertRows, rowsOf, updateFromValues } from '../../db/batch';
import type {
  DecisionRow,
  DecisionUpdate,
  NewDecisionRow,
  RetractedDecisions,
  Settled,
  Settling,
} from './rules.types';
import { signals } from '../../db/schema/news';
import { ruleDecisions } from '../../db/schema/rules';
import { ExitsRepo } from './exits.repo';

/**
 * SQL for the decision ledger: claims (once per rule and signal), the writes of one headline's decisions
 * batched into one statement each, the reads of the API and the engine, answers to proposals, and what a
 * retraction marks. The exits of the positions its decisions opened are `ExitsRepo`'s.
 */
export class DecisionsRepo extends ExitsRepo {
  /** The decisions of one headline move together (claimed, sent, fired): their updates go as one. */
  private readonly updates = new Batcher<{ id: number; set: DecisionUpdate }, void>((items) =>
    this.updateMany(items),
  );
  /** A headline's decisions marked as sent, just before their orders go, in one statement. */
  private readonly sending = new Batcher<{ id: number; at: Date }, boolean>((items) =>
    this.markSendingMany(items),
  );
  /** A headline's outcomes recorded (fired, skipped), each only while its decision is still open. */
  private readonly settles = new Batcher<{ id: number; set: DecisionUpdate; from: Settling }, Settled>(
    (items) => this.settleMany(items),
  );

  /**
   * Records a decision unless one exists for the same (rule, signal): the row, or null when another
   * process or an earlier run decided first.
   */
  async claimDecision(row: NewDecisionRow): Promise<DecisionRow | null> {
    const [created] = await this.db
      .insert(ruleDecisions)
      .values(row)
      .onConflictDoNothing({ target: [ruleDecisions.ruleId, ruleDecisions.signalId] })
      .returning();
    return created ?? null;
  }

  /**
   * Records the decisions of one signal in one insert, skipping each (rule, signal) that exists already:
   * the rows recorded here by rule id. A rule missing from the answer was decided by another process or
   * an earlier run.
   */
  async claimDecisions(rows: NewDecisionRow[]): Promise<Map<string, DecisionRow>> {
    const claimed = new Map<string, DecisionRow>();
    if (rows.length === 0) return claimed;
    // Only the ids come back: the rest of each row is what was sent (decoding every column of thirty
    // returned rows cost more than the insert's own statement).
    // A story retracted or disputed by the time of the claim is never decided, whatever copy of it the
    // engine holds (one read before the mark, or heard by a process that started since).
    const inserted = await this.db.execute(
      insertRows(ruleDecisions, rows, {
        rowsWhere: UNMARKED_SIGNAL,
        onConflictDoNothing: [ruleDecisions.ruleId, ruleDecisions.signalId],
        returning: [ruleDecisions.id, ruleDecisions.ruleId],
      }),
    );
    const sent = new Map(rows.map((row) => [row.ruleId, row]));
    for (const r of (inserted as unknown as { rows: { id: unknown; rule_id: string }[] }).rows) {
      const row = sent.get(r.rule_id);
      if (row !== undefined)
        claimed.set(row.ruleId, completeRow(ruleDecisions, { ...row, id: Number(r.id) }));
    }
    return claimed;
  }

  async updateDecision(id: number, set: DecisionUpdate): Promise<void> {
    await this.updates.add({ id, set });
  }

  /**
   * Updates that set the same columns go in one statement; a decision updated twice in one batch is
   * updated in order, one statement each.
   */
  private async updateMany(items: { id: number; set: DecisionUpdate }[]): Promise<void[]> {
    const ids = new Set(items.map((i) => i.id));
    if (items.length === 1 || ids.size < items.length) {
      for (const { id, set } of items)
        await this.db.update(ruleDecisions).set(set).where(eq(ruleDecisions.id, id));
      return items.map(() => undefined);
    }
    const groups = new Map<string, { columns: string[]; rows: { key: number[]; set: DecisionUpdate }[] }>();
    for (const { id, set } of items) {
      const columns = Object.keys(set)
        .filter((k) => set[k as keyof DecisionUpdate] !== undefined)
        .sort();
      const signature = columns.join(',');
      const group = groups.get(signature) ?? { columns, rows: [] };
      group.rows.push({ key: [id], set });
      groups.set(signature, group);
    }
    for (const { columns, rows } of groups.values()) {
      if (columns.length === 0) continue;
      await this.db.execute(updateFromValues(ruleDecisions, [ruleDecisions.id], columns, rows));
    }
    return items.map(() => undefined);
  }

  /**
   * Marks a decision as sent, just before its order goes out, only while it is pending, not marked sent
   * and its story not retracted: true when it may go. False: the story was retracted (or the decision
   * settled) while it waited its turn, and the order must not be sent.
   */
  async markSending(id: number, at: Date): Promise<boolean> {
    return this.sending.add({ id, at });
  }

  private async markSendingMany(items: { id: number; at: Date }[]): Promise<boolean[]> {
    const d = ruleDecisions;
    const result = await this.db.execute(sql`
      update ${d} set sent_at = v.at
      from unnest(${arrayOf(
        'bigint',
        items.map((i) => i.id),
      )}, ${arrayOf(
        'timestamptz',
        items.map((i) => i.at),
      )}) as v(id, at)
      where ${d}.id = v.id and ${d}.outcome = 'pending' and ${d}.sent_at is null
        and ${d}.retracted_by is null
      returning ${d}.id`);
    const won = new Set((result as unknown as { rows: { id: unknown }[] }).rows.map((r) => Number(r.id)));
    // One id twice in a batch: the first call wins it.
    const seen = new Set<number>();
    return items.map((i) => {
      const first = won.has(i.id) && !seen.has(i.id);
      seen.add(i.id);
      return first;
    });
  }

  /**
   * Records a decision's outcome only while it is still `from` (pending; or asking too, for a skip):
   * whether this call won the row, and the retraction of its story when one came meanwhile (a fill that
   * landed on a retracted story is unwound at once). A loser changes nothing: another call (a look-up
   * racing the answer, a retraction's cancel) recorded the outcome first.
   */
  async settle(id: number, set: DecisionUpdate, from: Settling = 'pending'): Promise<Settled> {
    return this.settles.add({ id, set, from });
  }

  private async settleMany(items: { id: number; set: DecisionUpdate; from: Settling }[]): Promise<Settled[]> {
    const ids = new Set(items.map((i) => i.id));
    const out = new Map<number, Settled>();
    const groups = new Map<
      string,
      { columns: string[]; from: Settling; rows: { key: number[]; set: DecisionUpdate }[] }
    >();
    const run = async (columns: string[], from: Settling, rows: { key: number[]; set: DecisionUpdate }[]) => {
      const outcomes = from === 'pending' ? `('pending')` : `('pending', 'asking')`;
      const result = await this.db.execute(
        updateFromValues(ruleDecisions, [ruleDecisions.id], columns, rows).append(
          sql.raw(
            ` and "rule_decisions"."outcome" in ${outcomes} returning "rule_decisions"."id", "rule_decisions"."retracted_by"`,
          ),
        ),
      );
      for (const r of (result as unknown as { rows: { id: unknown; retracted_by: unknown }[] }).rows)
        out.set(Number(r.id), {
          won: true,
          retractedBy: r.retracted_by === null ? null : Number(r.retracted_by),
        });
    };
    if (ids.size < items.length) {
      // One decision twice in a batch: in order, one statement each; the first to find it open wins.
      return items.reduce<Promise<Settled[]>>(async (done, item) => {
        const answers = await done;
        out.delete(item.id);
        await run(columnsOfSet(item.set), item.from, [{ key: [item.id], set: item.set }]);
        return [...answers, out.get(item.id) ?? { won: false, retractedBy: null }];
      }, Promise.resolve([]));
    }
    for (const { id, set, from } of items) {
      const columns = columnsOfSet(set);
      const signature = `${from}:${columns.join(',')}`;
      const group = groups.get(signature) ?? { columns, from, rows: [] };
      group.rows.push({ key: [id], set });
      groups.set(signature, group);
    }
    for (const { columns, from, rows } of groups.values()) await run(columns, from, rows);
    return items.map((i) => out.get(i.id) ?? { won: false, retractedBy: null });
  }

  /** The user's decisions, newest first, but those on the `hidden` sources' signals (see `shownOnly`). */
  async decisions(
    userId: string,
    q: { before?: number | undefined; limit: number; signalId?: number | undefined },
    hidden: readonly string[] = [],
  ): Promise<DecisionRow[]> {
    const where = [eq(ruleDecisions.userId, userId), ...shownOnly(hidden)];
    if (q.before !== undefined) where.push(lt(ruleDecisions.id, q.before));
    if (q.signalId !== undefined) where.push(eq(ruleDecisions.signalId, q.signalId));
    return this.db
      .select()
      .from(ruleDecisions)
      .where(and(...where))
      .orderBy(desc(ruleDecisions.id))
      .limit(q.limit);
  }

  /** One rule's decisions, newest first (its reports read them). */
  async decisionsOfRule(userId: string, ruleId: string, limit = 5000): Promise<DecisionRow[]> {
    return this.db
      .select()
      .from(ruleDecisions)
      .where(and(eq(ruleDecisions.userId, userId), eq(ruleDecisions.ruleId, ruleId)))
      .orderBy(desc(ruleDecisions.id))
      .limit(limit);
  }

  async decisionsForSignals(
    userId: string,
    signalIds: number[],
    hidden: readonly string[] = [],
  ): Promise<DecisionRow[]> {
    if (signalIds.length === 0) return [];
    return this.db
      .select()
      .from(ruleDecisions)
      .where(
        and(
          eq(ruleDecisions.userId, userId),
          inArray(ruleDecisions.signalId, signalIds),
          ...shownOnly(hidden),
        ),
      );
  }

  /** One of the user's decisions, or null (another user's is none of theirs). */
  async decision(userId: string, id: number): Promise<DecisionRow | null> {
    const [row] = await this.db
      .select()
      .from(ruleDecisions)
      .where(and(eq(ruleDecisions.id, id), eq(ruleDecisions.userId, userId)));
    return row ?? null;
  }

  /**
   * Records the answer to a proposal in one statement, only while it is still asking and its window
   * open at `now`: of answers racing from several places (and processes) exactly one gets the row back,
   * the others null.
   */
  async answerDecision(
    userId: string,
    id: number,
    now: Date,
    set: DecisionUpdate & Required<Pick<DecisionUpdate, 'outcome' | 'answeredVia' | 'answeredAt'>>,
  ): Promise<DecisionRow | null> {
    const [row] = await this.db
      .update(ruleDecisions)
      .set(set)
      .where(
        and(
          eq(ruleDecisions.id, id),
          eq(ruleDecisions.userId, userId),
          eq(ruleDecisions.outcome, 'asking'),
          gt(ruleDecisions.askExpiresAt, now),
        ),
      )
      .returning();
    return row ?? null;
  }

  /** Skips, as unanswered, every proposal whose window closed by `now` (also those closed while down). */
  async expireAsking(now: Date): Promise<DecisionRow[]> {
    return this.db
      .update(ruleDecisions)
      .set({
        outcome: 'skipped',
        reason: 'no_answer',
        detail: sql`'No answer within ' || round(extract(epoch from ${ruleDecisions.askExpiresAt} - ${ruleDecisions.decidedAt}))::int || ' s.'`,
      })
      .where(and(eq(ruleDecisions.outcome, 'asking'), lte(ruleDecisions.askExpiresAt, now)))
      .returning();
  }

  /**
   * Decisions still `pending` that were claimed (or, for an ask rule's, confirmed) before `before`: what a
   * crash interrupted. A proposal confirmed late is pending from its answer, not from its claim.
   */
  async pendingDecisions(before: Date): Promise<DecisionRow[]> {
    return this.db
      .select()
      .from(ruleDecisions)
      .where(
        and(
          eq(ruleDecisions.outcome, 'pending'),
          lt(ruleDecisions.decidedAt, before),
          sql`coalesce(${ruleDecisions.answeredAt}, ${ruleDecisions.decidedAt}) < ${before.toISOString()}::timestamptz`,
        ),
      )
      .limit(500);
  }

  /**
   * A signal retracted by `retractionId`, in one statement: every decision on it not marked yet keeps the
   * retraction; those whose order was not sent (pending with no send time, or a proposal still asking)
   * are skipped as retracted, so that a retracted story is not traded late. Answers the decisions marked
   * now: those cancelled, the open positions to close, and the orders on their way (their fill, when it
   * lands, finds the mark and is unwound). Once per decision: a second call finds nothing to mark.
   */
  async retractDecisions(
    signalId: number,
    retractionId: number,
    detail: string,
  ): Promise<RetractedDecisions> {
    const d = ruleDecisions;
    const unsent = sql`${d.outcome} in ('pending', 'asking') and ${d.sentAt} is null`;
    const result = await this.db.execute(sql`
      update ${d} set retracted_by = ${retractionId},
        outcome = case when ${unsent} then 'skipped' else ${d.outcome} end,
        reason = case when ${unsent} then 'retracted' else ${d.reason} end,
        detail = case when ${unsent} then ${detail} else ${d.detail} end
      where ${d.signalId} = ${signalId} and ${d.retractedBy} is null
      returning *`);
    const marked = rowsOf(ruleDecisions, result);
    return {
      cancelled: marked.filter(
        (r) => r.outcome === 'skipped' && r.reason === 'retracted' && r.sentAt === null,
      ),
      open: marked.filter((r) => r.exitState === 'open'),
      inFlight: marked.filter((r) => r.outcome === 'pending'),
    };
  }
}

/**
 * The claim's condition on each row: its signal is neither retracted nor disputed, and it is not the
 * retraction (or dispute) of a story the same rule decided on: a denial read as good news must not open
 * again what the story it denies opened. The stories marked in the last two days are few, and read by
 * their own index.
 */
const UNMARKED_SIGNAL = sql`not exists (select 1 from ${signals} s where s.id = "row"."signal_id" and (s.retracted_by is not null or s.dispute is not null))
  and not exists (
    select 1 from ${signals} t join ${ruleDecisions} p on p.signal_id = t.id and p.rule_id = "row"."rule_id"
    where (t.retracted_by is not null or t.dispute is not null)
      and t.received_at > now() - interval '2 days'
      and (t.retracted_by = "row"."signal_id" or t.dispute ->> 'signal_id' = "row"."signal_id"::text))`;

/** The columns an update sets (those given a value), sorted: updates of one shape go as one statement. */
function columnsOfSet(set: DecisionUpdate): string[] {
  return Object.keys(set)
    .filter((k) => set[k as keyof DecisionUpdate] !== undefined)
    .sort();
}

/**
 * Leaves out the decisions on signals of the `hidden` sources (a premium source's, for an account whose
 * plan does not receive it); one whose source is not known is shown.
 */
function shownOnly(hidden: readonly string[]): SQL[] {
  if (hidden.length === 0) return [];
  const source = ruleDecisions.signalSource;
  return [sql`(${source} is null or not (${source} = any(${arrayOf('text', hidden)})))`];
}
