import { and, asc, desc, eq, gt, isNotNull, isNull, lt, ne, sql, type SQL } from 'drizzle-orm';
import { arrayOf } from '../../db/batch';
import type { Db } from '../../db/client';
import {
  identities,
  refreshTokens,
  rememberedDevices,
  stepUps,
  type SignInMethod,
  type StoredDeviceInfo,
} from '../../db/schema';

export type RefreshRow = typeof refreshTokens.$inferSelect;
export type DeviceRow = typeof rememberedDevices.$inferSelect;

/** SQL for refresh tokens and remembered devices; nothing else. */
export class SessionsRepo {
  constructor(private readonly db: Db) {}

  async insertRefresh(row: {
    userId: string;
    familyId: string;
    deviceId: string | null;
    tokenHash: string;
    persistent: boolean;
    expiresAt: Date;
    signInMethod: SignInMethod | null;
    identityId: string | null;
  }): Promise<void> {
    await this.db.insert(refreshTokens).values(row);
  }

  /**
   * Inside a transaction: holds the identity's row (shared) until it ends, so an unlink waits for the
   * sign-in being recorded, and then ends it too. False when the identity is gone (just unlinked).
   */
  async holdIdentity(id: string): Promise<boolean> {
    const rows = await this.db
      .select({ id: identities.id })
      .from(identities)
      .where(eq(identities.id, id))
      .for('share');
    return rows.length === 1;
  }

  /** What started a family: its method and identity (the same on every token of it). */
  async credentialOf(
    familyId: string,
  ): Promise<{ userId: string; signInMethod: SignInMethod | null; identityId: string | null } | undefined> {
    const [row] = await this.db
      .select({
        userId: refreshTokens.userId,
        signInMethod: refreshTokens.signInMethod,
        identityId: refreshTokens.identityId,
      })
      .from(refreshTokens)
      .where(eq(refreshTokens.familyId, familyId))
      .limit(1);
    return row;
  }

  /** Revokes the families of a user that these identities started (but `keepFamily`). */
  async revokeIdentityFamilies(
    userId: string,
    identityIds: readonly string[],
    keepFamily: string | null,
    at: Date,
  ): Promise<void> {
    if (identityIds.length === 0) return;
    const conditions = [
      eq(refreshTokens.userId, userId),
      sql`${refreshTokens.identityId} = any(${arrayOf('uuid', identityIds)})`,
    ];
    if (keepFamily !== null) conditions.push(ne(refreshTokens.familyId, keepFamily));
    await this.revokeWhere(and(...conditions), at);
  }

  /** Deletes the devices these identities' sign-ins remembered; answers how many. */
  async deleteIdentityDevices(userId: string, identityIds: readonly string[]): Promise<number> {
    if (identityIds.length === 0) return 0;
    const rows = await this.db
      .delete(rememberedDevices)
      .where(
        and(
          eq(rememberedDevices.userId, userId),
          sql`${rememberedDevices.identityId} = any(${arrayOf('uuid', identityIds)})`,
        ),
      )
      .returning({ id: rememberedDevices.id });
    return rows.length;
  }

  async findRefresh(tokenHash: string): Promise<RefreshRow | undefined> {
    const [row] = await this.db.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, tokenHash));
    return row;
  }

  /** Marks a token rotated; false when it already was (a concurrent or repeated use). */
  async markRotated(id: string, at: Date): Promise<boolean> {
    const rows = await this.db
      .update(refreshTokens)
      .set({ rotatedAt: at })
      .where(and(eq(refreshTokens.id, id), isNull(refreshTokens.rotatedAt)))
      .returning({ id: refreshTokens.id });
    return rows.length === 1;
  }

  /**
   * Spends a rotated token's one grace sibling: its expiry is set to its rotation time, which marks it
   * (`expiresAt` equal to `rotatedAt`). False when the sibling was already given.
   */
  async spendGrace(id: string): Promise<boolean> {
    const rows = await this.db
      .update(refreshTokens)
      .set({ expiresAt: sql`${refreshTokens.rotatedAt}` })
      .where(and(eq(refreshTokens.id, id), sql`${refreshTokens.expiresAt} > ${refreshTokens.rotatedAt}`))
      .returning({ id: refreshTokens.id });
    return rows.length === 1;
  }

  /** Ends a family's step-up confirmation. */
  async clearStepUp(familyId: string): Promise<void> {
    await this.db.delete(stepUps).where(eq(stepUps.familyId, familyId));
  }

  /** Runs `work` in one transaction, with a repo bound to it. */
  async transaction<T>(work: (repo: SessionsRepo) => Promise<T>): Promise<T> {
    return this.db.transaction(async (tx) => work(new SessionsRepo(tx)));
  }

  /**
   * Row-locks every token of a family (in id order) until the transaction ends. Rotation and revocation
   * both take this lock first, so a revocation either sees the successor a rotation inserted, or the
   * rotation sees the revocation: a family is never revoked around a live token.
   */
  async lockFamily(familyId: string): Promise<void> {
    await this.db
      .select({ id: refreshTokens.id })
      .from(refreshTokens)
      .where(eq(refreshTokens.familyId, familyId))
      .orderBy(asc(refreshTokens.id))
      .for('update');
  }

  /** True when any token of the family was revoked: the family is dead. */
  async familyRevoked(familyId: string): Promise<boolean> {
    const rows = await this.db
      .select({ id: refreshTokens.id })
      .from(refreshTokens)
      .where(and(eq(refreshTokens.familyId, familyId), isNotNull(refreshTokens.revokedAt)))
      .limit(1);
    return rows.length > 0;
  }

  /** Of these families, those with a revoked token (dead): one statement, one array parameter, for any number. */
  async revokedFamilies(familyIds: readonly string[]): Promise<Set<string>> {
    if (familyIds.length === 0) return new Set();
    const rows = await this.db
      .selectDistinct({ familyId: refreshTokens.familyId })
      .from(refreshTokens)
      .where(
        and(
          sql`${refreshTokens.familyId} = any(${arrayOf('uuid', familyIds)})`,
          isNotNull(refreshTokens.revokedAt),
        ),
      );
    return new Set(rows.map((r) => r.familyId));
  }

  /** Revokes one family; call inside a transaction that holds `lockFamily`. */
  async revokeFamily(familyId: string, at: Date): Promise<void> {
    await this.revokeWhere(eq(refreshTokens.familyId, familyId), at);
  }

  /** Revokes the families started by a user's devices: one device, or all but `keep`. */
  async revokeDeviceFamilies(
    userId: string,
    device: { only: string } | { keep: string | null },
    at: Date,
    keepFamily: string | null = null,
  ) {
    const conditions = [eq(refreshTokens.userId, userId)];
    if (keepFamily !== null) conditions.push(ne(refreshTokens.familyId, keepFamily));
    if ('only' in device) conditions.push(eq(refreshTokens.deviceId, device.only));
    else {
      conditions.push(isNotNull(refreshTokens.deviceId));
      if (device.keep !== null) conditions.push(ne(refreshTokens.deviceId, device.keep));
    }
    await this.revokeWhere(and(...conditions), at);
  }

  /** Revokes every family of a user except `keepFamily` (null: all of them). */
  async revokeUserFamilies(userId: string, keepFamily: string | null, at: Date): Promise<void> {
    const conditions = [eq(refreshTokens.userId, userId)];
    if (keepFamily !== null) conditions.push(ne(refreshTokens.familyId, keepFamily));
    await this.revokeWhere(and(...conditions), at);
  }

  /**
   * Revokes the whole families of the tokens matching `where`. The rows are locked first, in their own
   * statement, so the update (a later snapshot) also covers a successor a concurrent rotation inserted.
   */
  private async revokeWhere(where: SQL | undefined, at: Date): Promise<void> {
    await this.db.transaction(async (tx) => {
      const families = await tx
        .selectDistinct({ familyId: refreshTokens.familyId })
        .from(refreshTokens)
        .where(and(where, isNull(refreshTokens.revokedAt)));
      for (const { familyId } of families.sort((a, b) => a.familyId.localeCompare(b.familyId))) {
        await new SessionsRepo(tx).lockFamily(familyId);
        await tx
          .update(refreshTokens)
          .set({ revokedAt: at })
          .where(and(eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt)));
      }
    });
  }

  /** Marks a sign-in confirmed until `until` (never shortening a later confirmation). */
  async markSteppedUp(userId: string, familyId: string, until: Date): Promise<void> {
    await this.db
      .insert(stepUps)
      .values({ familyId, userId, confirmedUntil: until })
      .onConflictDoUpdate({
        target: stepUps.familyId,
        set: { confirmedUntil: sql`greatest(${stepUps.confirmedUntil}, excluded.confirmed_until)` },
        setWhere: eq(stepUps.userId, userId),
      });
  }

  /** Until when a user's sign-in is confirmed, if it ever was. */
  async steppedUpUntil(userId: string, familyId: string): Promise<Date | undefined> {
    const [row] = await this.db
      .select({ until: stepUps.confirmedUntil })
      .from(stepUps)
      .where(and(eq(stepUps.familyId, familyId), eq(stepUps.userId, userId)));
    return row?.until;
  }

  /** Forgets confirmations that ended before `before`. */
  async purgeStepUps(userId: string, before: Date): Promise<void> {
    await this.db.delete(stepUps).where(and(eq(stepUps.userId, userId), lt(stepUps.confirmedUntil, before)));
  }

  async insertDevice(row: {
    userId: string;
    tokenHash: string;
    deviceInfo: StoredDeviceInfo;
    fingerprint: string;
    expiresAt: Date;
    identityId: string | null;
  }): Promise<DeviceRow> {
    const [created] = await this.db.insert(rememberedDevices).values(row).returning();
    if (created === undefined) throw new Error('insert returned no row');
    return created;
  }

  async findDeviceByToken(tokenHash: string, now: Date): Promise<DeviceRow | undefined> {
    const [row] = await this.db
      .select()
      .from(rememberedDevices)
      .where(and(eq(rememberedDevices.tokenHash, tokenHash), gt(rememberedDevices.expiresAt, now)));
    return row;
  }

  async touchDevice(id: string, at: Date): Promise<void> {
    await this.db.update(rememberedDevices).set({ lastUsedAt: at }).where(eq(rememberedDevices.id, id));
  }

  async listDevices(userId: string, now: Date): Promise<DeviceRow[]> {
    return this.db
      .select()
      .from(rememberedDevices)
      .where(and(eq(rememberedDevices.userId, userId), gt(rememberedDevices.expiresAt, now)))
      .orderBy(desc(rememberedDevices.lastUsedAt));
  }

  /** Deletes one of a user's devices; answers whether it existed. */
  async deleteDevice(userId: string, id: string): Promise<boolean> {
    const rows = await this.db
      .delete(rememberedDevices)
      .where(and(eq(rememberedDevices.userId, userId), eq(rememberedDevices.id, id)))
      .returning({ id: rememberedDevices.id });
    return rows.length === 1;
  }

  /** Deletes a user's devices except `keep`; answers the ids deleted. */
  async deleteDevices(userId: string, keep: string | null): Promise<string[]> {
    const conditions = [eq(rememberedDevices.userId, userId)];
    if (keep !== null) conditions.push(ne(rememberedDevices.id, keep));
    const rows = await this.db
      .delete(rememberedDevices)
      .where(and(...conditions))
      .returning({ id: rememberedDevices.id });
    return rows.map((r) => r.id);
  }
}
