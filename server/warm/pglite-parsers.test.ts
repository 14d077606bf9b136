import { types, type PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
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
