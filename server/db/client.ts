import { chmod, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import pg from 'pg';
import * as schema from './schema';

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('./migrations', import.meta.url));

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
  /** PGlite in memory (tests). */
  | { kind: 'pglite-memory' }
  /** PostgreSQL; `schema` confines every table (and the migrations journal) to one schema (tests). */
  | { kind: 'postgres'; url: string; schema?: string; poolSize?: number };

/** Opens the database and applies the committed migrations. */
export async function openDatabase(target: DatabaseTarget): Promise<Database> {
  if (target.kind === 'postgres') return openPostgres(target.url, target.schema, target.poolSize ?? 10);
  let client: PGlite;
  if (target.kind === 'pglite') {
    await mkdir(target.dataDir, { recursive: true, mode: 0o700 });
    client = new PGlite(target.dataDir);
  } else {
    client = new PGlite();
  }
  await client.waitReady;
  const db = drizzlePglite({ client, schema });
  const migrate = () => migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER });
  await migrate();
  if (target.kind === 'pglite') await ownerOnly(target.dataDir);
  let closed = false;
  return {
    db: db as unknown as Db,
    driver: 'pglite',
    migrate,
    ping: () => ping(db as unknown as Db),
    async close() {
      if (closed) return;
      closed = true;
      await client.close();
    },
  };
}

async function openPostgres(url: string, schemaName: string | undefined, max: number): Promise<Database> {
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
  const migrate = () =>
    migratePg(db, {
      migrationsFolder: MIGRATIONS_FOLDER,
      ...(schemaName ? { migrationsSchema: schemaName } : {}),
    });
  await migrate();
  let closed = false;
  return {
    db: db as unknown as Db,
    driver: 'postgres',
    migrate,
    ping: () => ping(db as unknown as Db),
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
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
