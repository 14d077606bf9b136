import { inArray } from 'drizzle-orm';
import { Batcher } from '../../db/batch';
import type { Db } from '../../db/client';
import { tradingAccounts } from '../../db/schema/trading';

/** SQL for the account each user's orders go to; nothing else. */
export class AccountsRepo {
  /** Many users' reads at once (their positions snapshots after one headline's fills) go as one. */
  private readonly reads = new Batcher<string, string | null>(async (userIds) => {
    const rows = await this.db
      .select({ userId: tradingAccounts.userId, keyId: tradingAccounts.keyId })
      .from(tradingAccounts)
      .where(inArray(tradingAccounts.userId, [...new Set(userIds)]));
    const chosen = new Map(rows.map((r) => [r.userId, r.keyId]));
    return userIds.map((id) => chosen.get(id) ?? null);
  });

  constructor(private readonly db: Db) {}

  /** The chosen key id, or null for the paper exchange. */
  async chosenKey(userId: string): Promise<string | null> {
    return this.reads.add(userId);
  }

  async choose(userId: string, keyId: string | null): Promise<void> {
    await this.db
      .insert(tradingAccounts)
      .values({ userId, keyId })
      .onConflictDoUpdate({ target: tradingAccounts.userId, set: { keyId, updatedAt: new Date() } });
  }
}
