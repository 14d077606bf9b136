import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbTargets, useDatabase } from '../../tests/helpers/db';
import type { Database } from '../db/client';
import { signals } from '../db/schema';
import { rehearseDecisionStatements } from './decision-statements';
import { rehearseOrderStatements } from './order-statements';
import { rehearseSignalStatements } from './signal-statements';
import { rehearseInRollback, scratchUser } from './statement-rehearsal';

const TABLES = [
  'users',
  'rules',
  'rule_decisions',
  'order_requests',
  'paper_ledger',
  'trades',
  'signals',
] as const;

async function counts(database: Database): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of TABLES) {
    const result = await database.db.execute(sql.raw(`select count(*)::int as n from "${table}"`));
    out[table] = Number((result as unknown as { rows: { n: unknown }[] }).rows[0]?.n);
  }
  return out;
}

describe.each(dbTargets())('statements rehearsed at start (%s)', (name) => {
  const target = useDatabase(name);
  let database: Database;
  beforeAll(async () => {
    database = await target.open();
  });
  afterAll(async () => {
    await database?.close();
    await target.cleanup();
  });

  it('run every hot statement of a headline without an error and keep none of their rows', async () => {
    const warned: object[] = [];
    const log = { warn: (obj: object) => warned.push(obj) };
    const before = await counts(database);
    for (const rehearse of [rehearseSignalStatements, rehearseDecisionStatements, rehearseOrderStatements]) {
      expect(await rehearse(database.db, log)).toBeGreaterThan(0);
    }
    expect(warned).toEqual([]);
    expect(await counts(database)).toEqual(before);
  });

  it('leave the ids the cards show as they were', async () => {
    await rehearseSignalStatements(database.db, { warn: () => undefined });
    const [first] = await database.db
      .insert(signals)
      .values({
        source: 'webhook',
        fingerprint: 'f',
        content: 'Binance will list FOO',
        sourceName: 'Test',
        mediaUrls: [],
        backlog: false,
        receivedAt: new Date(),
        status: 'analyzing',
        assets: [],
        initialPrices: {},
        alsoReportedBy: [],
      })
      .returning({ id: signals.id });
    expect(first?.id).toBe(1);
  });

  it('say so when a statement fails, and still keep nothing', async () => {
    const warned: object[] = [];
    const before = await counts(database);
    await rehearseInRollback(
      database.db,
      async (tx) => {
        await scratchUser(tx);
        await tx.execute(sql`select * from no_such_table`);
      },
      { warn: (obj) => warned.push(obj) },
    );
    expect(warned).toHaveLength(1);
    expect(await counts(database)).toEqual(before);
  });
});
