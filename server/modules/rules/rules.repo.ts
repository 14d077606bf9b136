import { and, count, eq, sql } from 'drizzle-orm';
import type { NewRuleRow, RuleRow } from './rules.types';
import { ruleCursor, rules } from '../../db/schema/rules';
import { DecisionsRepo } from './decisions.repo';

/**
 * SQL for the rules and the engine's cursor, on top of the ledger's (`DecisionsRepo`), its exits'
 * (`ExitsRepo`) and the risk envelope's (`RiskRepo`): one class per table or concern, stacked so that the
 * module hands every part of it the same repo, each typing it as the layer it uses.
 */
export class RulesRepo extends DecisionsRepo {
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
