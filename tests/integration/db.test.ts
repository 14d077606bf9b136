import { eq, sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { users } from '../../server/db/schema';
import { dbTargets, useDatabase } from '../helpers/db';

describe.each(dbTargets())('database on %s', (name) => {
  const target = useDatabase(name);
  afterAll(() => target.cleanup());

  it('applies the migrations, and applying them again changes nothing', async () => {
    const database = await target.open();
    await database.db.insert(users).values({ email: 'Ada@Example.com', username: 'ada' });
    await database.migrate();
    const rows = await database.db.select().from(users);
    expect(rows.map((r) => r.username)).toEqual(['ada']);
    expect(rows[0]?.role).toBe('user');
    expect(rows[0]?.id).toMatch(/^[0-9a-f-]{36}$/);
    await database.close();
  });

  it('keeps emails and usernames unique regardless of case', async () => {
    const database = await target.open();
    await database.db.delete(users);
    await database.db.insert(users).values({ email: 'Ada@Example.com', username: 'ada' });
    await expect(
      database.db.insert(users).values({ email: 'ada@example.COM', username: 'someone' }),
    ).rejects.toThrow();
    await expect(
      database.db.insert(users).values({ email: 'x@example.com', username: 'ADA' }),
    ).rejects.toThrow();
    expect(await database.db.$count(users)).toBe(1);
    await database.close();
  });
});

describe('embedded database in DATA_DIR', () => {
  it('keeps data across a close and reopen', async () => {
    const target = await useDatabase('pglite', { server: true });
    try {
      const a = await target.open();
      await a.db.insert(users).values({ email: 'kept@example.com', username: 'kept' });
      await a.close();
      const b = await target.open();
      const row = await b.db.select().from(users).where(eq(users.username, 'kept'));
      expect(row).toHaveLength(1);
      await b.close();
    } finally {
      await target.cleanup();
    }
  });
});

describe.each(dbTargets().filter((t) => t === 'postgres'))('migrations on %s', (name) => {
  const target = useDatabase(name);
  afterAll(() => target.cleanup());

  it('a server started with MIGRATE_ON_START=false refuses a database that lacks migrations', async () => {
    await expect(target.open({ migrate: false })).rejects.toThrow(
      /has 0 of the \d+ migrations this version needs: run `npm run migrate`/,
    );
  });

  it('several servers starting at once apply each migration once, under the lock', async () => {
    const opened = await Promise.all(Array.from({ length: 4 }, () => target.open()));
    const [first] = opened;
    const { rows } = (await first?.db.execute(sql`SELECT hash FROM __drizzle_migrations`)) as unknown as {
      rows: { hash: string }[];
    };
    expect(rows.length).toBeGreaterThan(10);
    expect(new Set(rows.map((r) => r.hash)).size).toBe(rows.length);
    await Promise.all(opened.map((d) => d.close()));
    const checked = await target.open({ migrate: false });
    await checked.close();
  });
});
