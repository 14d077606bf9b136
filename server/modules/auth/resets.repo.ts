import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { passwordResets } from '../../db/schema';

/** SQL for reset tokens; nothing else. */
export class ResetsRepo {
  constructor(private readonly db: Db) {}

  async insert(userId: string, tokenHash: string, expiresAt: Date): Promise<void> {
    await this.db.insert(passwordResets).values({ userId, tokenHash, expiresAt });
  }

  /** The user of a live token, without spending it. */
  async ownerOf(tokenHash: string, now: Date): Promise<string | undefined> {
    const [row] = await this.db
      .select({ userId: passwordResets.userId })
      .from(passwordResets)
      .where(
        and(
          eq(passwordResets.tokenHash, tokenHash),
          isNull(passwordResets.usedAt),
          gt(passwordResets.expiresAt, now),
        ),
      );
    return row?.userId;
  }

  /** Spends a live token; answers its user, or undefined when it is unknown, used or expired. */
  async spend(tokenHash: string, now: Date): Promise<string | undefined> {
    const [row] = await this.db
      .update(passwordResets)
      .set({ usedAt: now })
      .where(
        and(
          eq(passwordResets.tokenHash, tokenHash),
          isNull(passwordResets.usedAt),
          gt(passwordResets.expiresAt, now),
        ),
      )
      .returning({ userId: passwordResets.userId });
    return row?.userId;
  }

  /** Spends every outstanding token of an account: a reset or a password change voids the others. */
  async voidAll(userId: string, now: Date): Promise<void> {
    await this.db
      .update(passwordResets)
      .set({ usedAt: now })
      .where(and(eq(passwordResets.userId, userId), isNull(passwordResets.usedAt)));
  }
}
