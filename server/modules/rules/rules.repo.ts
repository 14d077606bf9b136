import { and, count, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { riskSettings, ruleCursor, ruleDecisions, rules } from '../../db/schema/rules';

export type RuleRow = typeof rules.$inferSelect;
export type NewRuleRow = Omit<typeof rules.$inferInsert, 'id' | 'createdAt' | 'updatedAt' | 'version'>;
export type DecisionRow = typeof ruleDecisions.$inferSelect;
export type NewDecisionRow = Omit<typeof ruleDecisions.$inferInsert, 'id'>;
export type DecisionUpdate = Partial<Omit<NewDecisionRow, 'userId' | 'ruleId' | 'signalId'>>;
export type RiskRow = typeof riskSettings.$inferSelect;

/** SQL for rules, the decision ledger, risk settings and the engine's cursor; nothing else. */
export class RulesRepo {
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

  async updateDecision(id: number, set: DecisionUpdate): Promise<void> {
    await this.db.update(ruleDecisions).set(set).where(eq(ruleDecisions.id, id));
  }

  async decisions(
    userId: string,
    q: { before?: number | undefined; limit: number; signalId?: number | undefined },
  ): Promise<DecisionRow[]> {
    const where = [eq(ruleDecisions.userId, userId)];
    if (q.before !== undefined) where.push(lt(ruleDecisions.id, q.before));
    if (q.signalId !== undefined) where.push(eq(ruleDecisions.signalId, q.signalId));
    return this.db
      .select()
      .from(ruleDecisions)
      .where(and(...where))
      .orderBy(desc(ruleDecisions.id))
      .limit(q.limit);
  }

  async decisionsForSignals(userId: string, signalIds: number[]): Promise<DecisionRow[]> {
    if (signalIds.length === 0) return [];
    return this.db
      .select()
      .from(ruleDecisions)
      .where(and(eq(ruleDecisions.userId, userId), inArray(ruleDecisions.signalId, signalIds)));
  }

  /**
   * In one read, what the risk checks need of the user's fired automated orders: the notional since
   * `since` (the daily budget) and when one last traded `asset` (the cooldown).
   */
  async firedStats(
    userId: string,
    asset: string,
    since: Date,
  ): Promise<{ spent: number; lastOnAsset: Date | null }> {
    const [row] = await this.db
      .select({
        spent: sql<
          string | null
        >`sum(${ruleDecisions.notional}) filter (where ${ruleDecisions.decidedAt} >= ${since})`,
        last: sql<
          string | null
        >`max(${ruleDecisions.decidedAt}) filter (where ${ruleDecisions.asset} = ${asset})`,
      })
      .from(ruleDecisions)
      .where(and(eq(ruleDecisions.userId, userId), eq(ruleDecisions.outcome, 'fired')));
    return { spent: Number(row?.spent ?? 0), lastOnAsset: row?.last ? new Date(row.last) : null };
  }

  /** Decisions still `pending` that were claimed before `before`: what a crash interrupted. */
  async pendingDecisions(before: Date): Promise<DecisionRow[]> {
    return this.db
      .select()
      .from(ruleDecisions)
      .where(and(eq(ruleDecisions.outcome, 'pending'), lt(ruleDecisions.decidedAt, before)))
      .limit(500);
  }

  async openExits(): Promise<DecisionRow[]> {
    return this.db.select().from(ruleDecisions).where(eq(ruleDecisions.exitState, 'open'));
  }

  /** Marks an exit done; false when another process closed it first. */
  async closeExit(id: number, note: string): Promise<boolean> {
    const done = await this.db
      .update(ruleDecisions)
      .set({ exitState: 'closed', exitNote: note })
      .where(and(eq(ruleDecisions.id, id), eq(ruleDecisions.exitState, 'open')))
      .returning({ id: ruleDecisions.id });
    return done.length > 0;
  }

  async risk(userId: string): Promise<RiskRow | null> {
    const [row] = await this.db.select().from(riskSettings).where(eq(riskSettings.userId, userId));
    return row ?? null;
  }

  async saveRisk(row: Omit<RiskRow, 'updatedAt'>): Promise<RiskRow> {
    const { userId: _key, ...set } = row;
    const [saved] = await this.db
      .insert(riskSettings)
      .values(row)
      .onConflictDoUpdate({ target: riskSettings.userId, set: { ...set, updatedAt: new Date() } })
      .returning();
    if (!saved) throw new Error('risk upsert returned nothing');
    return saved;
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
