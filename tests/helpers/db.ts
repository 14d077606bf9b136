import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '../../server/db/client';
import { templateTarball } from './pglite-template';

/** A database a test suite runs against. */
export interface DbTarget {
  name: 'pglite' | 'postgres';
  open(): Promise<Database>;
  /** Removes what `open` created (the test schema on Postgres). */
  cleanup(): Promise<void>;
}

/**
 * The databases every DB test runs against: PGlite in memory always, and real PostgreSQL as well when
 * TEST_DATABASE_URL is set (a fresh schema per suite, dropped afterwards). TEST_DB_TARGETS=postgres
 * keeps only PostgreSQL (CI's second run, after `npm test` has covered PGlite).
 */
export function dbTargets(): DbTarget[] {
  const only = process.env.TEST_DB_TARGETS?.split(',').map((s) => s.trim());
  const all = allTargets();
  const chosen = only === undefined ? all : all.filter((t) => only.includes(t.name));
  if (chosen.length === 0) throw new Error(`TEST_DB_TARGETS=${only?.join(',')} names no available database`);
  return chosen;
}

/**
 * PGlite alone, whatever TEST_DB_TARGETS says: for recordings that name the database they ran on (the
 * offline default's answers, as the browser's tests replay them).
 */
export function pgliteTarget(): DbTarget {
  return allTargets()[0] as DbTarget;
}

function allTargets(): DbTarget[] {
  const targets: DbTarget[] = [
    {
      name: 'pglite',
      open: () => {
        const from = templateTarball();
        return openDatabase(from === undefined ? { kind: 'pglite-memory' } : { kind: 'pglite-memory', from });
      },
      cleanup: async () => {},
    },
  ];
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    targets.push({
      name: 'postgres',
      open: () => openDatabase({ kind: 'postgres', url, schema, poolSize: 4 }),
      async cleanup() {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        } finally {
          await client.end();
        }
      },
    });
  }
  return targets;
}
