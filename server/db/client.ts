import { chmod, mkdir, readdir } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import pg from 'pg';
import * as schema from './schema';
import { fromRoot } from '../paths';
import { openPglite as openPgliteWithParsers } from '../warm/pglite-parsers';

export const MIGRATIONS_FOLDER = fromRoot('server/db/migrations');

/** The Drizzle handle every repo receives; the same type for PGlite and PostgreSQL. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface Database {
  readonly db: Db;
  readonly driver: 'pglite' | 'postgres';
  /** Applies any committed migration not yet applied (done by `openDatabase`; idempotent). */
  migrate(): Promise<void>;
  /** True when a trivial query answers. */
  ping(): Promise<boolean>;
  /** Flushes and closes; safe to call twice. */
  close(): Promise<void>;
}

export type DatabaseTarget =
  /** PGlite stored in a folder (the embedded default). */
  | { kind: 'pglite'; dataDir: string }
  /** PGlite in memory (tests), empty or loaded from a tarball of a database (`dumpDataDir`). */
  | { kind: 'pglite-memory'; from?: Blob }
  /** PostgreSQL; `schema` confines every table (and the migrations journal) to one schema (tests). */
  | { kind: 'postgres'; url: string; schema?: string; poolSize?: number };

/**
 * Opens the database and applies the committed migrations, or with `migrate: false` only checks that
 * every one of them is applied (servers started after a release step ran `npm run migrate`). PGlite
 * holds drizzle's text types in its own parser table (server/warm/pglite-parsers.ts) unless
 * `pgliteParsers` is false (SPEED_TUNING=off).
 */
export async function openDatabase(
  target: DatabaseTarget,
  opts: { migrate?: boolean; pgliteParsers?: boolean } = {},
): Promise<Database> {
  if (target.kind === 'postgres') {
    return openPostgres(target.url, target.schema, target.poolSize ?? 10, opts.migrate ?? true);
  }
  const openPglite = opts.pgliteParsers === false ? openPlainPglite : openPgliteWithParsers;
  let client: PGlite;
  if (target.kind === 'pglite') {
    await mkdir(target.dataDir, { recursive: true, mode: 0o700 });
    if (!existsSync(path.join(target.dataDir, 'PG_VERSION'))) await createInWorker(target.dataDir);
    client = await openPglite({ dataDir: target.dataDir });
  } else {
    client = await openPglite(target.from === undefined ? {} : { loadDataDir: target.from });
  }
  const db = drizzlePglite({ client, schema });
  const migrate = () => migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER });
  await migrate();
  if (target.kind === 'pglite') await ownerOnly(target.dataDir);
  return handle(db as unknown as Db, 'pglite', migrate, () => client.close());
}

/** A PGlite client, ready, as PGlite makes it. */
async function openPlainPglite(options: PGliteOptions): Promise<PGlite> {
  const client = new PGlite(options);
  await client.waitReady;
  return client;
}

/** One open database, whichever its driver: closing it twice closes it once. */
function handle(
  db: Db,
  driver: Database['driver'],
  migrate: () => Promise<void>,
  end: () => Promise<void>,
): Database {
  let closed = false;
  return {
    db,
    driver,
    migrate,
    ping: () => ping(db),
    async close() {
      if (closed) return;
      closed = true;
      await end();
    },
  };
}

/**
 * Creates a new PGlite folder in a worker thread that then exits: initdb leaves the WebAssembly heap at
 * ~700 MB, which never shrinks, while opening a created folder needs ~250 MB.
 */
async function createInWorker(dataDir: string): Promise<void> {
  const worker = new Worker(fromRoot('server/db/pglite-create.mjs'), { workerData: { dataDir } });
  await new Promise<void>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`creating the database exited with ${code}`)),
    );
  });
}

async function openPostgres(
  url: string,
  schemaName: string | undefined,
  max: number,
  migrateOnOpen: boolean,
): Promise<Database> {
  if (schemaName !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schemaName)) {
    throw new Error(`Invalid schema name ${schemaName}`);
  }
  if (schemaName) {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA IF NOT EXISTS "${schemaName}"`);
    } finally {
      await admin.end();
    }
  }
  const pool = new pg.Pool({
    connectionString: url,
    max,
    // A database that accepts connections but never answers fails a request instead of holding it.
    connectionTimeoutMillis: 5_000,
    keepAlive: true,
    ...(schemaName ? { options: `-c search_path=${schemaName}` } : {}),
  });
  // An idle connection the database (or the network) dropped: the pool discards it and the next query
  // opens a new one. Without a listener the error would end the process.
  pool.on('error', () => undefined);
  const db = drizzlePg({ client: pool, schema });
  const migrationsSchema = schemaName ?? 'drizzle';
  // Several servers may start at once against one database: one session holds an advisory lock
  // while it applies what is missing; the others wait for it and then find nothing to do.
  const migrate = async () => {
    const client = await pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock(hashtext($1))', [
        `signal-console:migrations:${migrationsSchema}`,
      ]);
      try {
        await migratePg(drizzlePg({ client, schema }), {
          migrationsFolder: MIGRATIONS_FOLDER,
          migrationsSchema,
        });
      } finally {
        await client.query('SELECT pg_advisory_unlock(hashtext($1))', [
          `signal-console:migrations:${migrationsSchema}`,
        ]);
      }
    } finally {
      client.release();
    }
  };
  try {
    if (migrateOnOpen) await migrate();
    else await assertMigrated(pool, migrationsSchema);
  } catch (err) {
    await pool.end();
    throw err;
  }
  return handle(db as unknown as Db, 'postgres', migrate, () => pool.end());
}

/** Refuses to serve a database that lacks a committed migration (or has one this code does not know). */
async function assertMigrated(pool: pg.Pool, migrationsSchema: string): Promise<void> {
  const journal = JSON.parse(readFileSync(path.join(MIGRATIONS_FOLDER, 'meta/_journal.json'), 'utf8')) as {
    entries: unknown[];
  };
  let applied = 0;
  try {
    const res = await pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM "${migrationsSchema}"."__drizzle_migrations"`,
    );
    applied = Number(res.rows[0]?.n ?? 0);
  } catch (err) {
    if ((err as { code?: string }).code !== '42P01') throw err; // undefined_table: nothing applied yet
  }
  if (applied !== journal.entries.length) {
    throw new Error(
      `the database has ${applied} of the ${journal.entries.length} migrations this version needs: run \`npm run migrate\` (or start with MIGRATE_ON_START=true)`,
    );
  }
}

async function ping(db: Db): Promise<boolean> {
  try {
    await db.execute(sql`select 1`);
    return true;
  } catch {
    return false;
  }
}

/**
 * Makes a folder and everything in it readable by the owner only (folders 0700, files 0600): the
 * embedded database holds password hashes and sealed secrets. The server also sets its umask to 077, so
 * files made later are born that way.
 */
export async function ownerOnly(dir: string): Promise<void> {
  await chmod(dir, 0o700);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) await ownerOnly(full);
    else if (entry.isFile()) await chmod(full, 0o600);
  }
}

/** Where the embedded database lives inside DATA_DIR. */
export function pgliteDir(dataDir: string): string {
  return path.join(dataDir, 'pglite');
}
