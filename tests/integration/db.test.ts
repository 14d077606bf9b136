import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/db/client';
import { users } from '../../server/db/schema';
import { dbTargets } from '../helpers/db';

describe.each(dbTargets())('database on $name', (target) => {
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
    const dir = await mkdtemp(path.join(tmpdir(), 'sc-pglite-'));
    try {
      const a = await openDatabase({ kind: 'pglite', dataDir: dir });
      await a.db.insert(users).values({ email: 'kept@example.com', username: 'kept' });
      await a.close();
      const b = await openDatabase({ kind: 'pglite', dataDir: dir });
      const row = await b.db.select().from(users).where(eq(users.username, 'kept'));
      expect(row).toHaveLength(1);
      await b.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

const postgresUrls = process.env.TEST_DATABASE_URL ? [process.env.TEST_DATABASE_URL] : [];
describe.each(postgresUrls)('migrations on PostgreSQL', (url) => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  afterAll(async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => client.end());
  });

  it('a server started with MIGRATE_ON_START=false refuses a database that lacks migrations', async () => {
    await expect(
      openDatabase({ kind: 'postgres', url, schema, poolSize: 1 }, { migrate: false }),
    ).rejects.toThrow(/has 0 of the \d+ migrations this version needs: run `npm run migrate`/);
  });

  it('several servers starting at once apply each migration once, under the lock', async () => {
    const opened = await Promise.all(
      Array.from({ length: 4 }, () => openDatabase({ kind: 'postgres', url, schema, poolSize: 2 })),
    );
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client
      .query<{ hash: string }>(`SELECT hash FROM "${schema}"."__drizzle_migrations"`)
      .finally(() => client.end());
    expect(rows.length).toBeGreaterThan(10);
    expect(new Set(rows.map((r) => r.hash)).size).toBe(rows.length);
    await Promise.all(opened.map((d) => d.close()));
    const checked = await openDatabase({ kind: 'postgres', url, schema, poolSize: 1 }, { migrate: false });
    await checked.close();
  });
});
