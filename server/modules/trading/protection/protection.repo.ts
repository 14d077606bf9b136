import { and, eq, inArray, lte, or, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { positionProtections } from '../../../db/schema/protection';
import type { StoredLegs } from './legs';

export type ProtectionRow = typeof positionProtections.$inferSelect;

/** The position a row protects: the user, the account's name (`paper` or a key id), the symbol. */
export interface PositionKey {
  userId: string;
  account: string;
  symbol: string;
}

export interface ProtectionPlan {
  side: 'long' | 'short';
  stopLossPrice: string | null;
  takeProfitPrice: string | null;
  trailingPct: string | null;
  legs: StoredLegs;
  exitAt: Date | null;
}

/** SQL for positions' protection rows; every change after the first is conditional on the version read. */
export class ProtectionRepo {
  constructor(private readonly db: Db) {}

  async get(key: PositionKey): Promise<ProtectionRow | null> {
    const [row] = await this.db
      .select()
      .from(positionProtections)
      .where(
        and(
          eq(positionProtections.userId, key.userId),
          eq(positionProtections.account, key.account),
          eq(positionProtections.symbol, key.symbol),
        ),
      );
    return row ?? null;
  }

  /** The user's rows on one account (the positions pane's). */
  async ofAccount(userId: string, account: string): Promise<ProtectionRow[]> {
    return this.db
      .select()
      .from(positionProtections)
      .where(and(eq(positionProtections.userId, userId), eq(positionProtections.account, account)));
  }

  /** The accounts that hold at least one row. */
  async accounts(): Promise<{ userId: string; account: string }[]> {
    return this.db
      .selectDistinct({ userId: positionProtections.userId, account: positionProtections.account })
      .from(positionProtections);
  }

  /** Every row, by account (the reconciliation's round). */
  async all(): Promise<ProtectionRow[]> {
    return this.db.select().from(positionProtections);
  }

  /**
   * Sets the position's plan, replacing any earlier one: a new row, or the old one with its version
   * bumped. The legs' client ids need the row's id, so they are written by {@link update} right after.
   */
  async upsert(key: PositionKey, plan: ProtectionPlan): Promise<ProtectionRow> {
    const exit =
      plan.exitAt === null
        ? { exitAt: null, exitState: null }
        : { exitAt: plan.exitAt, exitState: 'open' as const };
    const values = {
      ...key,
      side: plan.side,
      stopLossPrice: plan.stopLossPrice,
      takeProfitPrice: plan.takeProfitPrice,
      trailingPct: plan.trailingPct,
      legs: plan.legs,
      ...exit,
      exitAttempts: 0,
      exitNextAt: null,
      exitClientId: null,
      exitStartedAt: null,
      exitNote: null,
    };
    const [row] = await this.db
      .insert(positionProtections)
      .values(values)
      .onConflictDoUpdate({
        target: [positionProtections.userId, positionProtections.account, positionProtections.symbol],
        set: { ...values, version: sql`${positionProtections.version} + 1`, updatedAt: new Date() },
      })
      .returning();
    if (row === undefined) throw new Error('protection row not written');
    return row;
  }

  /** Writes `set` if the row is still at `version`; the row as written, or null when another write won. */
  async update(
    id: number,
    version: number,
    set: Partial<Omit<ProtectionRow, 'id' | 'userId' | 'account' | 'symbol' | 'version' | 'createdAt'>>,
  ): Promise<ProtectionRow | null> {
    const [row] = await this.db
      .update(positionProtections)
      .set({ ...set, version: version + 1, updatedAt: new Date() })
      .where(and(eq(positionProtections.id, id), eq(positionProtections.version, version)))
      .returning();
    return row ?? null;
  }

  /** Removes the row if it is still at `version`. */
  async remove(id: number, version: number): Promise<boolean> {
    const rows = await this.db
      .delete(positionProtections)
      .where(and(eq(positionProtections.id, id), eq(positionProtections.version, version)))
      .returning({ id: positionProtections.id });
    return rows.length > 0;
  }

  /**
   * Claims the time exits due now: `open` ones whose time (and back-off) has come, and `closing` ones a
   * process left for longer than `staleMs` (it died mid-close). Each claim is one conditional write, so
   * two processes never close one position twice; the claimed rows, now `closing`.
   */
  async claimDueExits(now: Date, staleMs: number, ids?: number[]): Promise<ProtectionRow[]> {
    const stale = new Date(now.getTime() - staleMs);
    const due = or(
      and(
        eq(positionProtections.exitState, 'open'),
        lte(positionProtections.exitAt, now),
        or(sql`${positionProtections.exitNextAt} is null`, lte(positionProtections.exitNextAt, now)),
      ),
      and(eq(positionProtections.exitState, 'closing'), lte(positionProtections.exitStartedAt, stale)),
    );
    return this.db
      .update(positionProtections)
      .set({
        exitState: 'closing',
        exitStartedAt: now,
        version: sql`${positionProtections.version} + 1`,
        updatedAt: now,
      })
      .where(ids === undefined ? due : and(due, inArray(positionProtections.id, ids)))
      .returning();
  }
}
