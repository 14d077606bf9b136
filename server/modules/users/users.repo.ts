import { and, desc, eq, isNotNull, or, sql } from 'drizzle-orm';
import { arrayOf } from '../../db/batch';
import type { Db } from '../../db/client';
import { users } from '../../db/schema';

export type UserRow = typeof users.$inferSelect;

/** Advisory-lock key serialising "the first account becomes admin" (any constant unique to it). */
const FIRST_ADMIN_LOCK = 0x5c_ad_01;

/** SQL for the users table; nothing else. */
export class UsersRepo {
  constructor(private readonly db: Db) {}

  async insert(row: {
    email: string | null;
    username: string;
    passwordHash: string | null;
    role: 'user' | 'admin';
  }) {
    const [created] = await this.db.insert(users).values(row).returning();
    if (created === undefined) throw new Error('insert returned no row');
    return created;
  }

  /** Inside a transaction: waits for any other "first account" decision until this one commits. */
  async lockFirstAdmin(): Promise<void> {
    await this.db.execute(sql`select pg_advisory_xact_lock(${FIRST_ADMIN_LOCK})`);
  }

  /** Of these accounts, the disabled ones: one statement, one array parameter, for any number. */
  async disabledAmong(ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db
      .select({ id: users.id })
      .from(users)
      .where(and(sql`${users.id} = any(${arrayOf('uuid', ids)})`, isNotNull(users.disabledAt)));
    return new Set(rows.map((r) => r.id));
  }

  async findById(id: string): Promise<UserRow | undefined> {
    const [row] = await this.db.select().from(users).where(eq(users.id, id)).limit(1);
    return row;
  }

  async findByEmail(email: string): Promise<UserRow | undefined> {
    const [row] = await this.db
      .select()
      .from(users)
      .where(sql`lower(${users.email}) = lower(${email})`)
      .limit(1);
    return row;
  }

  async findByUsername(username: string): Promise<UserRow | undefined> {
    const [row] = await this.db
      .select()
      .from(users)
      .where(sql`lower(${users.username}) = lower(${username})`)
      .limit(1);
    return row;
  }

  /** By username or email, case-insensitive; a username match wins. */
  async findByLogin(login: string): Promise<UserRow | undefined> {
    const rows = await this.db
      .select()
      .from(users)
      .where(
        or(sql`lower(${users.username}) = lower(${login})`, sql`lower(${users.email}) = lower(${login})`),
      )
      .limit(2);
    return rows.find((r) => r.username.toLowerCase() === login.toLowerCase()) ?? rows[0];
  }

  async hasAdmin(): Promise<boolean> {
    const rows = await this.db.select({ id: users.id }).from(users).where(eq(users.role, 'admin')).limit(1);
    return rows.length > 0;
  }

  async setPasswordHash(id: string, passwordHash: string | null): Promise<void> {
    await this.db.update(users).set({ passwordHash, updatedAt: new Date() }).where(eq(users.id, id));
  }

  async setTwoFactorEnabled(id: string, enabled: boolean): Promise<void> {
    await this.db
      .update(users)
      .set({ twoFactorEnabled: enabled, updatedAt: new Date() })
      .where(eq(users.id, id));
  }

  /** Locks the account's row until the surrounding transaction ends. */
  async lock(id: string): Promise<void> {
    await this.db.select({ id: users.id }).from(users).where(eq(users.id, id)).for('update');
  }

  /** Every account, newest first (the admin panel). */
  listAll(): Promise<UserRow[]> {
    return this.db.select().from(users).orderBy(desc(users.createdAt));
  }

  async setDisabled(id: string, disabled: boolean): Promise<boolean> {
    const rows = await this.db
      .update(users)
      .set({ disabledAt: disabled ? new Date() : null, updatedAt: new Date() })
      .where(eq(users.id, id))
      .returning({ id: users.id });
    return rows.length > 0;
  }
}
