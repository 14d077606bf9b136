import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import {
  loginChallenges,
  recoveryCodes,
  twoFactor,
  type SignInMethod,
  type StoredDeviceInfo,
} from '../../db/schema';

export type TwoFactorRow = typeof twoFactor.$inferSelect;
export type ChallengeRow = typeof loginChallenges.$inferSelect;

/** SQL for TOTP secrets, recovery codes and pending 2FA logins; nothing else. */
export class TwoFactorRepo {
  constructor(private readonly db: Db) {}

  async find(userId: string): Promise<TwoFactorRow | undefined> {
    const [row] = await this.db.select().from(twoFactor).where(eq(twoFactor.userId, userId));
    return row;
  }

  /** Stores a new (not yet enabled) secret, replacing an unfinished setup. */
  async saveSecret(userId: string, secretEnc: string): Promise<void> {
    await this.db
      .insert(twoFactor)
      .values({ userId, secretEnc, enabled: false, lastStep: null })
      .onConflictDoUpdate({
        target: twoFactor.userId,
        set: { secretEnc, enabled: false, lastStep: null, updatedAt: new Date() },
      });
  }

  /** Records `step` as used; false when it (or a later step) was used already: a replay. */
  async claimStep(userId: string, step: number): Promise<boolean> {
    const rows = await this.db
      .update(twoFactor)
      .set({ lastStep: step })
      .where(and(eq(twoFactor.userId, userId), or(isNull(twoFactor.lastStep), lt(twoFactor.lastStep, step))))
      .returning({ userId: twoFactor.userId });
    return rows.length === 1;
  }

  async setEnabled(userId: string, enabled: boolean): Promise<void> {
    await this.db
      .update(twoFactor)
      .set({ enabled, updatedAt: new Date() })
      .where(eq(twoFactor.userId, userId));
  }

  async remove(userId: string): Promise<void> {
    await this.db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
    await this.db.delete(twoFactor).where(eq(twoFactor.userId, userId));
  }

  async replaceRecoveryCodes(userId: string, hashes: readonly string[]): Promise<void> {
    await this.db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
    await this.db.insert(recoveryCodes).values(hashes.map((codeHash) => ({ userId, codeHash })));
  }

  /** Spends a recovery code; false when it does not exist or was spent. */
  async useRecoveryCode(userId: string, codeHash: string): Promise<boolean> {
    const rows = await this.db
      .update(recoveryCodes)
      .set({ usedAt: new Date() })
      .where(
        and(
          eq(recoveryCodes.userId, userId),
          eq(recoveryCodes.codeHash, codeHash),
          isNull(recoveryCodes.usedAt),
        ),
      )
      .returning({ id: recoveryCodes.id });
    return rows.length === 1;
  }

  /** How many recovery codes the user has not spent. */
  async recoveryCodesLeft(userId: string): Promise<number> {
    const [row] = await this.db
      .select({ left: sql<number>`count(*)::int` })
      .from(recoveryCodes)
      .where(and(eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt)));
    return row?.left ?? 0;
  }

  /** A new pending 2FA login; earlier ones of the same user are dropped. */
  async startChallenge(row: {
    userId: string;
    tokenHash: string;
    rememberMe: boolean;
    deviceInfo: StoredDeviceInfo;
    fingerprint: string;
    expiresAt: Date;
    signInMethod: SignInMethod;
    identityId: string | null;
  }): Promise<void> {
    await this.db.delete(loginChallenges).where(eq(loginChallenges.userId, row.userId));
    await this.db.insert(loginChallenges).values(row);
  }

  async challengeByToken(tokenHash: string): Promise<ChallengeRow | undefined> {
    const [row] = await this.db
      .select()
      .from(loginChallenges)
      .where(eq(loginChallenges.tokenHash, tokenHash));
    return row;
  }

  /** Counts one try; answers the tries so far. */
  async countAttempt(id: string): Promise<number> {
    const [row] = await this.db
      .update(loginChallenges)
      .set({ attempts: sql`${loginChallenges.attempts} + 1` })
      .where(eq(loginChallenges.id, id))
      .returning({ attempts: loginChallenges.attempts });
    return row?.attempts ?? Number.POSITIVE_INFINITY;
  }

  async endChallenge(id: string): Promise<void> {
    await this.db.delete(loginChallenges).where(eq(loginChallenges.id, id));
  }
}
