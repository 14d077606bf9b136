import { and, asc, desc, eq, isNull, lt, notInArray } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { identities, web3Nonces } from '../../db/schema';

export type IdentityRow = typeof identities.$inferSelect;
export type Provider = IdentityRow['provider'];
export type NonceRow = typeof web3Nonces.$inferSelect;

/** SQL for identities (wallets, Google, Twitter) and SIWE nonces; nothing else. */
export class IdentitiesRepo {
  constructor(private readonly db: Db) {}

  async find(provider: Provider, subject: string): Promise<IdentityRow | undefined> {
    const [row] = await this.db
      .select()
      .from(identities)
      .where(and(eq(identities.provider, provider), eq(identities.subject, subject)))
      .limit(1);
    return row;
  }

  async byId(id: string): Promise<IdentityRow | undefined> {
    const [row] = await this.db.select().from(identities).where(eq(identities.id, id)).limit(1);
    return row;
  }

  listOf(userId: string, provider?: Provider): Promise<IdentityRow[]> {
    const where =
      provider === undefined
        ? eq(identities.userId, userId)
        : and(eq(identities.userId, userId), eq(identities.provider, provider));
    return this.db
      .select()
      .from(identities)
      .where(where)
      .orderBy(asc(identities.createdAt), asc(identities.id));
  }

  async insert(row: typeof identities.$inferInsert): Promise<IdentityRow> {
    const [created] = await this.db.insert(identities).values(row).returning();
    if (created === undefined) throw new Error('insert returned no row');
    return created;
  }

  async remove(userId: string, id: string): Promise<IdentityRow | undefined> {
    const [row] = await this.db
      .delete(identities)
      .where(and(eq(identities.id, id), eq(identities.userId, userId)))
      .returning();
    return row;
  }

  /** Marks the user's oldest wallet primary (after the primary one was removed). */
  async promoteOldestWallet(userId: string): Promise<void> {
    const [oldest] = await this.listOf(userId, 'wallet');
    if (oldest === undefined) return;
    await this.db.update(identities).set({ isPrimary: true }).where(eq(identities.id, oldest.id));
  }

  async touch(id: string, fields: { chainId?: number; ensName?: string | null } = {}): Promise<void> {
    await this.db
      .update(identities)
      .set({ lastUsedAt: new Date(), ...fields })
      .where(eq(identities.id, id));
  }

  async insertNonce(row: typeof web3Nonces.$inferInsert): Promise<void> {
    await this.db.insert(web3Nonces).values(row);
  }

  /** Takes a nonce once: the first caller gets the row, every later one nothing. */
  async consumeNonce(nonce: string, now: Date): Promise<NonceRow | undefined> {
    const [row] = await this.db
      .update(web3Nonces)
      .set({ usedAt: now })
      .where(and(eq(web3Nonces.nonce, nonce), isNull(web3Nonces.usedAt)))
      .returning();
    return row;
  }

  /** Deletes the wallet's nonces (outstanding or spent) but the newest `keep`. */
  async keepNewestNonces(address: string, keep: number): Promise<void> {
    const newest = this.db
      .select({ nonce: web3Nonces.nonce })
      .from(web3Nonces)
      .where(eq(web3Nonces.address, address))
      .orderBy(desc(web3Nonces.createdAt), desc(web3Nonces.nonce))
      .limit(keep);
    await this.db
      .delete(web3Nonces)
      .where(and(eq(web3Nonces.address, address), notInArray(web3Nonces.nonce, newest)));
  }

  async purgeNonces(before: Date): Promise<void> {
    await this.db.delete(web3Nonces).where(lt(web3Nonces.expiresAt, before));
  }
}
