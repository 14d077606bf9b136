import { lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { signupNotices } from '../../db/schema';

/** SQL for the sign-up notices of taken addresses; nothing else. */
export class SignupNoticesRepo {
  constructor(private readonly db: Db) {}

  /**
   * Claims the account's next notice: true when none was mailed since `since` (and records `now`), false
   * when one was. One statement, so two processes never both claim it.
   */
  async claim(userId: string, now: Date, since: Date): Promise<boolean> {
    const rows = await this.db
      .insert(signupNotices)
      .values({ userId, mailedAt: now })
      .onConflictDoUpdate({
        target: signupNotices.userId,
        set: { mailedAt: sql`excluded.mailed_at` },
        setWhere: lt(signupNotices.mailedAt, since),
      })
      .returning({ userId: signupNotices.userId });
    return rows.length === 1;
  }
}
