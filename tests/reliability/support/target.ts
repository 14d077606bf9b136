import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase, pgliteDir, type Database } from '../../../server/db/client';

export type TargetName = 'pglite' | 'postgres';

/** Where one scenario's server keeps its data, made fresh for the scenario and removed after it. */
export interface Target {
  name: TargetName;
  /** What the server runs with: its DATA_DIR, and DATABASE_URL with a SECRETS_KEY on PostgreSQL. */
  env: Record<string, string>;
  /** Opens the scenario's database to read what the server stored (PGlite: only while the server is down). */
  open(): Promise<Database>;
  cleanup(): Promise<void>;
}

/**
 * The databases the scenarios run on: PGlite in DATA_DIR always, and PostgreSQL as well when
 * TEST_DATABASE_URL is set; TEST_DB_TARGETS=postgres keeps PostgreSQL alone, as for the server tests.
 */
export function targetNames(): TargetName[] {
  const all: TargetName[] = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
  const only = process.env.TEST_DB_TARGETS?.split(',').map((s) => s.trim());
  const chosen = only === undefined ? all : all.filter((name) => only.includes(name));
  if (chosen.length === 0) throw new Error(`TEST_DB_TARGETS=${only?.join(',')} names no available database`);
  return chosen;
}

export async function createTarget(name: TargetName): Promise<Target> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'sc-reliability-'));
  const removeDir = () => rm(dataDir, { recursive: true, force: true });
  if (name === 'pglite') {
    return {
      name,
      env: { DATA_DIR: dataDir },
      open: () => openDatabase({ kind: 'pglite', dataDir: pgliteDir(dataDir) }),
      cleanup: removeDir,
    };
  }
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_DATABASE_URL is not set');
  const database = `reliability_${randomBytes(6).toString('hex')}`;
  await admin(adminUrl, `CREATE DATABASE "${database}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return {
    name,
    env: { DATA_DIR: dataDir, DATABASE_URL: url.toString(), SECRETS_KEY: randomBytes(32).toString('hex') },
    open: () => openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 2 }),
    async cleanup() {
      // FORCE: a killed server's connections may not have been noticed by PostgreSQL yet.
      await admin(adminUrl, `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
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

/**
 * The shared event bus the bus scenarios run on: Redis when TEST_REDIS_URL is set, else none (the
 * in-process bus has no connection to lose).
 */
export function busTargets(): 'redis'[] {
  return process.env.TEST_REDIS_URL ? ['redis'] : [];
}
