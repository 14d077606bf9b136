import { PGlite, types, type QueryOptions } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { pgTable, timestamp } from 'drizzle-orm/pg-core';
import { drizzle } from 'drizzle-orm/pglite';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../db/client';
import { users } from '../db/schema';
import { withoutTextParsers } from './pglite-parsers';

/** The parsers Drizzle passes with each statement: these types kept as text. */
const drizzles = {
  [types.TIMESTAMP]: (v: string) => v,
  [types.TIMESTAMPTZ]: (v: string) => v,
  [types.INTERVAL]: (v: string) => v,
  [types.DATE]: (v: string) => v,
  1231: (v: string) => v,
  1115: (v: string) => v,
  1185: (v: string) => v,
  1187: (v: string) => v,
  1182: (v: string) => v,
};

describe("PGlite with Drizzle's text types in its own table", () => {
  it("drops Drizzle's parsers from a statement's options, and only those", () => {
    expect(withoutTextParsers({ rowMode: 'array', parsers: drizzles })).toEqual({ rowMode: 'array' });
    expect(withoutTextParsers(undefined)).toBeUndefined();
    // A parser that does more than keep the text, or one of another type, is passed on with the rest.
    const parsing = {
      rowMode: 'object' as const,
      parsers: { ...drizzles, [types.DATE]: (v: string) => new Date(v) },
    };
    expect(withoutTextParsers(parsing)).toBe(parsing);
    const other = { parsers: { [types.INT4]: (v: string) => v } };
    expect(withoutTextParsers(other)).toBe(other);
  });

  it('reads what Drizzle read before, without merging parsers into a copy of the table per statement', async () => {
    const database = await openDatabase({ kind: 'pglite-memory' });
    try {
      const client = (database.db as unknown as { $client: PGlite }).$client;
      // A merge of the statement's parsers into the client's table lists the table's keys: counted.
      let merges = 0;
      client.parsers = new Proxy(client.parsers, {
        ownKeys(target) {
          merges += 1;
          return Reflect.ownKeys(target);
        },
      });
      await database.db.insert(users).values({ email: 'parsers@example.com', username: 'parsers' });
      const [row] = await database.db.select().from(users).limit(1);
      expect(row?.createdAt).toBeInstanceOf(Date);
      const raw = await database.db.execute(
        sql`select timestamptz '2025-01-02 03:04:05+00' as at, interval '1 day' as span,
          '{1.5,2}'::numeric[] as figures, date '2025-01-02' as day, '{2025-01-02}'::date[] as days`,
      );
      expect((raw as { rows: unknown[] }).rows[0]).toEqual({
        at: '2025-01-02 03:04:05+00',
        span: '1 day',
        figures: '{1.5,2}',
        day: '2025-01-02',
        days: '{2025-01-02}',
      });
      await database.db.transaction(async (tx) => {
        const [inside] = await tx.select().from(users).limit(1);
        expect(inside?.createdAt).toBeInstanceOf(Date);
      });
      expect(merges).toBe(0);
    } finally {
      await database.close();
    }
  });
});

/** A plain PGlite client (no table of ours), ready. */
async function plainPglite(): Promise<PGlite> {
  const client = new PGlite();
  await client.waitReady;
  return client;
}

describe('what holding the text types in PGlite relies on', () => {
  it("drizzle still passes these types as text with every statement, a transaction's too", async () => {
    const client = await plainPglite();
    try {
      const passed: (QueryOptions | undefined)[] = [];
      const query = client.query.bind(client);
      client.query = (text, params, opts) => {
        passed.push(opts);
        return query(text, params, opts);
      };
      const transaction = client.transaction.bind(client);
      client.transaction = (callback) =>
        transaction((tx) => {
          const txQuery = tx.query.bind(tx);
          tx.query = (text, params, opts) => {
            passed.push(opts);
            return txQuery(text, params, opts);
          };
          return callback(tx);
        });
      const db = drizzle({ client });
      const stamps = pgTable('stamps', { at: timestamp('at', { withTimezone: true }).notNull() });
      await db.execute(sql`create table stamps (at timestamptz not null)`);
      await db.insert(stamps).values({ at: new Date(0) });
      const [row] = await db.select().from(stamps);
      expect(row?.at).toEqual(new Date(0));
      await db.transaction(async (tx) => {
        await tx.select().from(stamps);
      });
      expect(passed).toHaveLength(4);
      // Drizzle passing other parsers, or none, would leave the table of ours with nothing to save.
      for (const opts of passed) {
        expect(opts?.parsers, 'drizzle passes parsers').toBeDefined();
        expect(withoutTextParsers(opts)?.parsers, 'only these types, each kept as text').toBeUndefined();
      }
    } finally {
      await client.close();
    }
  });

  it("PGlite still merges a statement's parsers into a copy of its table, and reads a type by its table", async () => {
    const client = await plainPglite();
    try {
      // The table is there, PGlite's own parser of a timestamp in it: the kind ours replace.
      expect(typeof client.parsers[types.TIMESTAMPTZ]).toBe('function');
      let merges = 0;
      client.parsers = new Proxy(client.parsers, {
        ownKeys(target) {
          merges += 1;
          return Reflect.ownKeys(target);
        },
      });
      const at = "select timestamptz '2025-01-02 03:04:05+00' as at";
      await client.query(at, [], { parsers: { [types.TIMESTAMPTZ]: (v: string) => v } });
      expect(merges, 'the cost the table of ours saves').toBeGreaterThan(0);
      // A statement that passes no parsers is read by the client's table: where ours are put.
      merges = 0;
      client.parsers[types.TIMESTAMPTZ] = (v: string) => v;
      const { rows } = await client.query<{ at: unknown }>(at);
      expect(rows[0]?.at).toBe('2025-01-02 03:04:05+00');
      expect(merges).toBe(0);
    } finally {
      await client.close();
    }
  });
});
