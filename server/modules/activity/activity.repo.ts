import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { accountActivity } from '../../db/schema';

export type ActivityRow = typeof accountActivity.$inferSelect;
export type NewActivity = typeof accountActivity.$inferInsert;

/** SQL for the activity log; nothing else. */
export class ActivityRepo {
  constructor(private readonly db: Db) {}

  async insert(row: NewActivity): Promise<void> {
    await this.db.insert(accountActivity).values(row);
  }

  list(userId: string, limit: number): Promise<ActivityRow[]> {
    return this.db
      .select()
      .from(accountActivity)
      .where(eq(accountActivity.userId, userId))
      .orderBy(desc(accountActivity.at), desc(accountActivity.id))
      .limit(limit);
  }

  /** Whether the user signed in from this device before. */
  async seenDevice(userId: string, fingerprint: string): Promise<boolean> {
    const [row] = await this.db
      .select({ id: accountActivity.id })
      .from(accountActivity)
      .where(
        and(
          eq(accountActivity.userId, userId),
          eq(accountActivity.kind, 'sign_in'),
          eq(accountActivity.fingerprint, fingerprint),
        ),
      )
      .limit(1);
    return row !== undefined;
  }

  async anySignIn(userId: string): Promise<boolean> {
    const [row] = await this.db
      .select({ id: accountActivity.id })
      .from(accountActivity)
      .where(and(eq(accountActivity.userId, userId), eq(accountActivity.kind, 'sign_in')))
      .limit(1);
    return row !== undefined;
  }
}
