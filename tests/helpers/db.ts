import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase, pgliteDir, type Database } from '../../server/db/client';
import { templateTarball } from './pglite-template';

/** Where a test's database lives: the embedded PGlite, or the PostgreSQL server of TEST_DATABASE_URL. */
export type DbTarget = 'pglite' | 'postgres';

/**
 * The targets every database test runs on: PGlite always, and real PostgreSQL as well when
 * TEST_DATABASE_URL is set. TEST_DB_TARGETS=postgres keeps only PostgreSQL (CI's second run, after
 * `npm test` has covered PGlite). Never empty: a file that runs on one database takes the first.
 */
export function dbTargets(): [DbTarget, ...DbTarget[]] {
  const all: DbTarget[] = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
  const only = process.env.TEST_DB_TARGETS?.split(',').map((s) => s.trim());
  const chosen = only === undefined ? all : all.filter((name) => only.includes(name));
  const [first, ...rest] = chosen;
  if (first === undefined) throw new Error(`TEST_DB_TARGETS=${only?.join(',')} names no available database`);
  return [first, ...rest];
}

/** A fresh database on one target, for apps built in the test's own process (`startTestApp`). */
export interface TestDatabase {
  readonly name: DbTarget;
  /**
   * Opens it and applies the migrations (`migrate: false` only checks them on PostgreSQL, as a server
   * started with MIGRATE_ON_START=false does). On PGlite each open is a database of its own in memory,
   * a copy of the migrated template; on PostgreSQL each open is another connection to the one schema of
   * this database, made by the first open: two apps opened from it share their data.
   */
  open(opts?: { migrate?: boolean }): Promise<Database>;
  /** Removes what `open` made (the schema on PostgreSQL); safe to call twice. */
  cleanup(): Promise<void>;
}

/** A fresh database on one target for a server process, which opens it itself from its environment. */
export interface ServerDatabase extends TestDatabase {
  /**
   * What the server runs with: DATA_DIR, an empty folder of its own (a server started on it under
   * vitest begins from the migrated template, see `startServerProcess`), and on PostgreSQL DATABASE_URL
   * naming a database made for it, with a SECRETS_KEY. `open` opens what the server stored there (on
   * PGlite only while no server has the folder open).
   */
  readonly env: Record<string, string>;
}

/**
 * A fresh database on `target`, for every test that needs one: for apps in the test's process, or with
 * `{ server: true }` for server processes (a database of its own on PostgreSQL, as the server has no
 * schema setting; made before it answers). `cleanup` removes it.
 */
export function useDatabase(target: DbTarget): TestDatabase;
export function useDatabase(target: DbTarget, opts: { server: true }): Promise<ServerDatabase>;
export function useDatabase(
  target: DbTarget,
  opts?: { server: true },
): TestDatabase | Promise<ServerDatabase> {
  if (opts?.server === true) return serverDatabase(target);
  return target === 'pglite' ? memoryDatabase() : schemaDatabase(adminUrl());
}

function adminUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set: no PostgreSQL to run on');
  return url;
}

function memoryDatabase(): TestDatabase {
  return {
    name: 'pglite',
    open: () => {
      const from = templateTarball();
      return openDatabase(from === undefined ? { kind: 'pglite-memory' } : { kind: 'pglite-memory', from });
    },
    cleanup: async () => {},
  };
}

function schemaDatabase(url: string): TestDatabase {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  return {
    name: 'postgres',
    open: (opts = {}) => openDatabase({ kind: 'postgres', url, schema, poolSize: 4 }, opts),
    cleanup: () => admin(url, `DROP SCHEMA IF EXISTS "${schema}" CASCADE`),
  };
}

async function serverDatabase(target: DbTarget): Promise<ServerDatabase> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'sc-data-'));
  const removeDir = () => rm(dataDir, { recursive: true, force: true });
  if (target === 'pglite') {
    return {
      name: target,
      env: { DATA_DIR: dataDir },
      open: () => openDatabase({ kind: 'pglite', dataDir: pgliteDir(dataDir) }),
      cleanup: removeDir,
    };
  }
  const url = adminUrl();
  const database = `sc_test_${randomBytes(6).toString('hex')}`;
  await admin(url, `CREATE DATABASE "${database}"`);
  const own = new URL(url);
  own.pathname = `/${database}`;
  return {
    name: target,
    env: { DATA_DIR: dataDir, DATABASE_URL: own.toString(), SECRETS_KEY: randomBytes(32).toString('hex') },
    open: (opts = {}) => openDatabase({ kind: 'postgres', url: own.toString(), poolSize: 2 }, opts),
    async cleanup() {
      // FORCE: a killed server's connections may not have been noticed by PostgreSQL yet.
      await admin(url, `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      await removeDir();
    },
  };
}

async function admin(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
