import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { tradingAccounts } from '../../db/schema/trading';

/** SQL for the account each user's orders go to; nothing else. */
export class AccountsRepo {
  constructor(private readonly db: Db) {}

  /** The chosen key id, or null for the paper exchange. */
  async chosenKey(userId: string): Promise<string | null> {
    const [row] = await this.db
      .select({ keyId: tradingAccounts.keyId })
      .from(tradingAccounts)
      .where(eq(tradingAccounts.userId, userId));
    return row?.keyId ?? null;
  }

  async choose(userId: string, keyId: string | null): Promise<void> {
    await this.db
      .insert(tradingAccounts)
      .values({ userId, keyId })
      .onConflictDoUpdate({ target: tradingAccounts.userId, set: { keyId, updatedAt: new Date() } });
  }
}
