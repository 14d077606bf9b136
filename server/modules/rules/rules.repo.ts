import { and, count, desc, eq, gt, inArray, lt, lte, sql, type SQL } from 'drizzle-orm';
import { arrayOf, Batcher, completeRow, insertRows, rowsOf, updateFromValues } from '../../db/batch';
import type { Db } from '../../db/client';
import type {
  CountedDecision,
  DecisionRow,
  DecisionUpdate,
  NewDecisionRow,
  NewRuleRow,
  RetractedDecisions,
  RiskRow,
  RuleRow,
  Settled,
  Settling,
} from './rules.types';
import { signals } from '../../db/schema/news';
import { riskSettings, ruleCursor, ruleDecisions, rules } from '../../db/schema/rules';

/** SQL for rules, the decision ledger, risk settings and the engine's cursor; nothing else. */
export class RulesRepo {
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
  /** The risk reads of one headline's decisions, one per user, go as one. */
  private readonly stats = new Batcher<FiredStatsQuery, { spent: number; lastOnAsset: Date | null }>(
    (queries) => this.firedStatsMany(queries),
  );

  /** The risk rows of many users at once (one headline's decisions, their cached copies expired together). */
  private readonly riskReads = new Batcher<string, RiskRow | null>(async (userIds) => {
    const rows = await this.db
      .select()
      .from(riskSettings)
      .where(inArray(riskSettings.userId, [...new Set(userIds)]));
    const byUser = new Map(rows.map((r) => [r.userId, r]));
    return userIds.map((id) => byUser.get(id) ?? null);
  });

  constructor(private readonly db: Db) {}

  async list(userId: string): Promise<RuleRow[]> {
    return this.db.select().from(rules).where(eq(rules.userId, userId)).orderBy(rules.createdAt);
  }

  async get(userId: string, id: string): Promise<RuleRow | null> {
    const [row] = await this.db
      .select()
      .from(rules)
      .where(and(eq(rules.userId, userId), eq(rules.id, id)));
    return row ?? null;
  }

  async activeCount(userId: string, except?: string): Promise<number> {
    const where = [eq(rules.userId, userId), eq(rules.isActive, true)];
    if (except !== undefined) where.push(sql`${rules.id} <> ${except}`);
    const [row] = await this.db
      .select({ n: count() })
      .from(rules)
      .where(and(...where));
    return row?.n ?? 0;
  }

  async insert(row: NewRuleRow): Promise<RuleRow> {
    const [created] = await this.db.insert(rules).values(row).returning();
    if (!created) throw new Error('rule insert returned nothing');
    return created;
  }

  async update(userId: string, id: string, set: Partial<NewRuleRow>): Promise<RuleRow | null> {
    const [row] = await this.db
      .update(rules)
      .set({ ...set, version: sql`${rules.version} + 1`, updatedAt: new Date() })
      .where(and(eq(rules.userId, userId), eq(rules.id, id)))
      .returning();
    return row ?? null;
  }

  async remove(userId: string, id: string): Promise<boolean> {
    const gone = await this.db
      .delete(rules)
      .where(and(eq(rules.userId, userId), eq(rules.id, id)))
      .returning({ id: rules.id });
    return gone.length > 0;
  }

  /** Every active rule of every user: what the engine indexes. */
  async allActive(): Promise<RuleRow[]> {
    return this.db.select().from(rules).where(eq(rules.isActive, true));
  }

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

  /**
   * The users' decisions that count against their budget and cooldown, decided since `from`: what the
   * engine's book of fired totals starts from. A pending one (its order's outcome not known yet) comes
   * alone, at its amount, since it may still be settled, and so does one decided since `recent` (the
   * book may still hear of it); the older fired ones, final, come summed per user and asset, those
   * before `midnight` apart from those after it, each sum with its latest time.
   */
  async countedDecisions(
    userIds: readonly string[],
    from: Date,
    midnight: Date,
    recent: Date,
  ): Promise<CountedDecision[]> {
    if (userIds.length === 0) return [];
    const d = ruleDecisions;
    // Grouped by position: the two expressions carry parameters, which the select and the grouping
    // would each bind anew.
    const result = await this.db.execute(sql`
      select ${d.userId} as user_id,
        case when ${d.outcome} = 'pending' or ${d.decidedAt} >= ${recent.toISOString()}::timestamptz
          then ${d.id} end as id,
        ${d.asset} as asset,
        ${d.decidedAt} >= ${midnight.toISOString()}::timestamptz as today,
        max(${d.decidedAt}) as at,
        sum(coalesce(${d.notional}, ${d.amountUsd})) as cost
      from ${d}
      where ${inArray(d.userId, [...userIds])}
        and ${d.decidedAt} > ${from.toISOString()}::timestamptz
        and ${d.outcome} in ('fired', 'pending')
      group by 1, 2, 3, 4`);
    const rows = (
      result as unknown as {
        rows: {
          user_id: string;
          id: number | string | null;
          asset: string;
          at: string | Date;
          cost: string;
        }[];
      }
    ).rows;
    return rows.map((r) => ({
      userId: r.user_id,
      id: r.id === null ? null : Number(r.id),
      asset: r.asset,
      at: new Date(r.at).getTime(),
      cost: Number(r.cost),
    }));
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

  /**
   * In one read, what the risk checks need of the user's fired automated orders: the notional since
   * `since` (the daily budget) and when one last traded `asset` (the cooldown).
   */
  async firedStats(
    userId: string,
    asset: string,
    since: Date,
    mode?: 'live',
    /** The decision being checked, and others claimed but not checked yet: their pending rows do not count. */
    except?: number | readonly number[],
  ): Promise<{ spent: number; lastOnAsset: Date | null }> {
    const excluded = except === undefined ? [] : typeof except === 'number' ? [except] : [...except];
    return this.stats.add({ userId, asset, since, mode: mode ?? null, except: excluded });
  }

  /** Each query's figures, all in one statement (a lateral read per query). */
  private async firedStatsMany(
    queries: FiredStatsQuery[],
  ): Promise<{ spent: number; lastOnAsset: Date | null }[]> {
    // A pending decision (its order's outcome not known yet) counts at its amount until it is settled.
    const cost = sql`coalesce(d.notional, d.amount_usd)`;
    const excepted = queries.flatMap((q, i) => q.except.map((id) => [i, id] as const));
    const exceptOf = excepted.map(([i]) => i);
    const exceptIds = excepted.map(([, id]) => id);
    const indexes = queries.map((_, i) => i);
    const userIds = queries.map((q) => q.userId);
    const assets = queries.map((q) => q.asset);
    const sinces = queries.map((q) => q.since);
    const modes = queries.map((q) => q.mode);
    const result = await this.db.execute(sql`
      with q as (
        select * from unnest(
          ${arrayOf('int', indexes)}, ${arrayOf('uuid', userIds)},
          ${arrayOf('text', assets)}, ${arrayOf('timestamptz', sinces)}, ${arrayOf('text', modes)}
        ) as q(i, user_id, asset, since, mode)
      ), ex as (
        select * from unnest(${arrayOf('int', exceptOf)}, ${arrayOf('bigint', exceptIds)}) as ex(i, id)
      )
      select q.i, s.spent, s.last
      from q
      cross join lateral (
        select
          sum(${cost}) filter (where d.decided_at >= q.since) as spent,
          max(d.decided_at) filter (where d.asset = q.asset) as last
        from ${ruleDecisions} d
        where d.user_id = q.user_id
          and d.outcome in ('fired', 'pending')
          -- The cooldown looks back at most a day (its maximum), the budget to midnight UTC.
          and d.decided_at >= q.since - interval '1 day'
          and (q.mode is null or d.account_mode = q.mode)
          and not exists (select 1 from ex where ex.i = q.i and ex.id = d.id)
      ) s`);
    const rows = (
      result as unknown as { rows: { i: number; spent: string | null; last: string | Date | null }[] }
    ).rows;
    const byIndex = new Map(rows.map((r) => [Number(r.i), r]));
    return queries.map((_, i) => {
      const row = byIndex.get(i);
      return {
        spent: Number(row?.spent ?? 0),
        lastOnAsset: row?.last ? new Date(row.last) : null,
      };
    });
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

  async risk(userId: string): Promise<RiskRow | null> {
    return this.riskReads.add(userId);
  }

  /**
   * Inserts the user's row from `base` with `set` on top, or on conflict updates only `set`'s columns:
   * two changes of different columns at once (a limit here, the kill switch on another node) both hold.
   */
  async saveRisk(
    userId: string,
    set: Partial<Omit<RiskRow, 'userId' | 'updatedAt'>>,
    base: Omit<RiskRow, 'updatedAt'>,
  ): Promise<RiskRow> {
    const [saved] = await this.db
      .insert(riskSettings)
      .values({ ...base, ...set, userId })
      .onConflictDoUpdate({ target: riskSettings.userId, set: { ...set, updatedAt: new Date() } })
      .returning();
    if (!saved) throw new Error('risk upsert returned nothing');
    return saved;
  }

  /**
   * Turns the user's kill switch on until `resumeAt`, in one statement, unless the stored switch is on
   * until later (or with no end): then nothing is written and null comes back. Of changes racing from
   * several places, none shortens a stop without the caller knowing.
   */
  async stopUnlessSooner(
    userId: string,
    resumeAt: Date,
    base: Omit<RiskRow, 'updatedAt'>,
  ): Promise<RiskRow | null> {
    const set = { killSwitch: true, resumeAt };
    const [saved] = await this.db
      .insert(riskSettings)
      .values({ ...base, ...set, userId })
      .onConflictDoUpdate({
        target: riskSettings.userId,
        set: { ...set, updatedAt: new Date() },
        setWhere: sql`not (${riskSettings.killSwitch} and (${riskSettings.resumeAt} is null or ${riskSettings.resumeAt} > ${resumeAt.toISOString()}::timestamptz))`,
      })
      .returning();
    return saved ?? null;
  }

  async cursor(name: string): Promise<number | null> {
    const [row] = await this.db
      .select({ rev: ruleCursor.rev })
      .from(ruleCursor)
      .where(eq(ruleCursor.name, name));
    return row?.rev ?? null;
  }

  /** Moves the cursor forward only: a slower process never moves it back. */
  async advanceCursor(name: string, rev: number): Promise<void> {
    await this.db
      .insert(ruleCursor)
      .values({ name, rev })
      .onConflictDoUpdate({
        target: ruleCursor.name,
        set: { rev: sql`greatest(${ruleCursor.rev}, ${rev})`, updatedAt: new Date() },
      });
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

interface FiredStatsQuery {
  userId: string;
  asset: string;
  since: Date;
  mode: 'live' | null;
  except: number[];
}
