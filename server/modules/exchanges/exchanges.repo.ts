import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { exchangeKeys } from '../../db/schema/exchanges';

export type KeyRow = typeof exchangeKeys.$inferSelect;
export type NewKeyRow = typeof exchangeKeys.$inferInsert;

/** SQL for exchange keys; nothing else. */
export class ExchangesRepo {
  constructor(private readonly db: Db) {}

  async list(userId: string): Promise<KeyRow[]> {
    return this.db
      .select()
      .from(exchangeKeys)
      .where(eq(exchangeKeys.userId, userId))
      .orderBy(asc(exchangeKeys.createdAt), asc(exchangeKeys.id));
  }

  async get(userId: string, id: string): Promise<KeyRow | undefined> {
    const [row] = await this.db
      .select()
      .from(exchangeKeys)
      .where(and(eq(exchangeKeys.userId, userId), eq(exchangeKeys.id, id)));
    return row;
  }

  async insert(row: NewKeyRow): Promise<KeyRow> {
    const [inserted] = await this.db.insert(exchangeKeys).values(row).returning();
    if (!inserted) throw new Error('insert returned no row');
    return inserted;
  }

  async remove(userId: string, id: string): Promise<boolean> {
    const rows = await this.db
      .delete(exchangeKeys)
      .where(and(eq(exchangeKeys.userId, userId), eq(exchangeKeys.id, id)))
      .returning({ id: exchangeKeys.id });
    return rows.length > 0;
  }

  async updateCheck(id: string, check: Pick<KeyRow, 'status' | 'permissions' | 'warnings'>): Promise<void> {
    await this.db
      .update(exchangeKeys)
      .set({ ...check, checkedAt: new Date() })
      .where(eq(exchangeKeys.id, id));
  }

  /** Every key (id and owner), for the daily hygiene check. */
  async all(): Promise<{ id: string; userId: string }[]> {
    return this.db.select({ id: exchangeKeys.id, userId: exchangeKeys.userId }).from(exchangeKeys);
  }
}
