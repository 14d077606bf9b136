import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../server/db/client';
import { maintainEmbedded, tablesDue, vacuumDue } from '../../server/db/maintenance';
import { dbTargets, useDatabase } from '../helpers/db';

const deadRows = async (database: Database, table: string): Promise<number> => {
  const result = await database.db.execute(
    sql`select n_dead_tup as dead from pg_stat_user_tables where relname = ${table}`,
  );
  return Number((result as unknown as { rows: { dead: unknown }[] }).rows[0]?.dead ?? 0);
};

/** A table of `rows` rows, each updated `times` times: every update leaves a dead row behind. */
async function churn(database: Database, table: string, rows: number, times: number): Promise<void> {
  await database.db.execute(sql.raw(`create table "${table}" (id serial primary key, n integer not null)`));
  await database.db.execute(sql.raw(`insert into "${table}" (n) select 0 from generate_series(1, ${rows})`));
  for (let i = 0; i < times; i++) await database.db.execute(sql.raw(`update "${table}" set n = n + 1`));
  await flushStats(database);
}

/** A backend reports its counts every second or so; the test makes the report come at once. */
async function flushStats(database: Database): Promise<void> {
  await database.db.execute(sql`select pg_stat_force_next_flush()`);
  await database.db.execute(sql`select 1`);
}

describe('the embedded database vacuums what autovacuum would', () => {
  const target = useDatabase('pglite');
  let database: Database;
  beforeAll(async () => {
    database = await target.open();
  });
  afterAll(async () => {
    await database.close();
    await target.cleanup();
  });

  it('vacuums the tables past 50 + 20 % of their rows dead, and only those', async () => {
    await churn(database, 'churned', 2000, 3);
    await churn(database, 'quiet', 2000, 0);
    await database.db.execute(sql.raw(`update "quiet" set n = 1 where id <= 100`));
    await flushStats(database);
    expect(await deadRows(database, 'churned')).toBeGreaterThan(450);
    const due = (await tablesDue(database.db)).map((t) => t.table);
    expect(due).toContain('churned');
    expect(due).not.toContain('quiet');
    const done = await vacuumDue(database.db);
    expect(done.map((d) => d.table)).toContain('churned');
    await flushStats(database);
    expect(await deadRows(database, 'churned')).toBe(0);
    expect(await deadRows(database, 'quiet')).toBe(100);
    expect((await tablesDue(database.db)).map((t) => t.table)).not.toContain('churned');
  });

  it('runs on a timer and says what it vacuumed; the stop waits for a vacuum under way', async () => {
    await churn(database, 'ticking', 1000, 2);
    const said: object[] = [];
    const stop = maintainEmbedded(database, { info: (obj) => said.push(obj), warn: () => undefined }, 20);
    expect(await deadRows(database, 'ticking')).toBeGreaterThan(1000);
    await expect.poll(() => JSON.stringify(said), { timeout: 5000 }).toContain('"table":"ticking"');
    await stop();
    await flushStats(database);
    expect(await deadRows(database, 'ticking')).toBe(0);
  });
});

describe.each(dbTargets().filter((t) => t === 'postgres'))('on %s', (name) => {
  const target = useDatabase(name);
  it('leaves the vacuuming to the server: no timer, no statement', async () => {
    const database = await target.open();
    try {
      const seen: string[] = [];
      const execute = database.db.execute.bind(database.db);
      database.db.execute = ((query: Parameters<typeof execute>[0]) => {
        seen.push('statement');
        return execute(query);
      }) as typeof database.db.execute;
      const stop = maintainEmbedded(database, { info: () => undefined, warn: () => undefined }, 5);
      await new Promise((resolve) => setTimeout(resolve, 50));
      await stop();
      expect(seen).toEqual([]);
    } finally {
      await database.close();
      await target.cleanup();
    }
  });
});
