import { eq, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { users } from '../../db/schema';

export type UserRow = typeof users.$inferSelect;

/** SQL for the users table; nothing else. */
export class UsersRepo {
  constructor(private readonly db: Db) {}

  async insert(row: { email: string; username: string; passwordHash: string; role: 'user' | 'admin' }) {
    const [created] = await this.db.insert(users).values(row).returning();
    if (created === undefined) throw new Error('insert returned no row');
    return created;
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

  async setPasswordHash(id: string, passwordHash: string): Promise<void> {
    await this.db.update(users).set({ passwordHash, updatedAt: new Date() }).where(eq(users.id, id));
  }

  async setTwoFactorEnabled(id: string, enabled: boolean): Promise<void> {
    await this.db
      .update(users)
      .set({ twoFactorEnabled: enabled, updatedAt: new Date() })
      .where(eq(users.id, id));
  }
}
