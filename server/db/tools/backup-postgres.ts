import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, chmod, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { ToolError, type KeyLookup } from './backup-files';
import { checkRestored, type RestoreReport } from './backup-verify';

type PgTool = 'pg_dump' | 'pg_restore';

/** The tool's path on PATH, or a `ToolError` that says what to install. */
export async function findPgTool(name: PgTool, searchPath = process.env.PATH ?? ''): Promise<string> {
  for (const dir of searchPath.split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, name);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  throw new ToolError(
    `${name} is not on PATH: install PostgreSQL's client programs, of the server's major version or newer ` +
      '(Debian and Ubuntu: apt-get install postgresql-client).',
  );
}

/**
 * The connection as libpq takes it: the URL without its password, which goes in PGPASSWORD so that it
 * never shows in the process list.
 */
function libpq(url: string): { dbname: string; env: NodeJS.ProcessEnv } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ToolError('DATABASE_URL is not a valid postgres:// URL.');
  }
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (parsed.password !== '') {
    env.PGPASSWORD = decodeURIComponent(parsed.password);
    parsed.password = '';
  }
  return { dbname: parsed.toString(), env };
}

/** The URL as it may be printed: without its password. */
export function shownUrl(url: string): string {
  return libpq(url).dbname;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve();
      else reject(new ToolError(`${path.basename(command)} failed (exit ${code}): ${stderr.trim()}`));
    });
  });
}

/** `pg_dump --format=custom` of the whole database into `file` (mode 0600). */
export async function dumpPostgres(url: string, file: string): Promise<void> {
  const pgDump = await findPgTool('pg_dump');
  const { dbname, env } = libpq(url);
  const partial = `${file}.partial`;
  try {
    await run(pgDump, ['--format=custom', `--file=${partial}`, `--dbname=${dbname}`], env);
    await chmod(partial, 0o600);
    await rename(partial, file);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
}

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/**
 * `pg_restore` into the database of `url`, in one transaction, without the dump's owners and grants (the
 * restoring role owns everything). A database with tables is replaced (`--clean --if-exists`) only with
 * `force`, and only while nothing else is connected to it.
 */
export async function restorePostgres(
  file: string,
  url: string,
  force: boolean,
  key: KeyLookup,
): Promise<RestoreReport> {
  const pgRestore = await findPgTool('pg_restore');
  const { tables, others, name } = await withClient(url, async (client) => {
    const t = await client.query<{ n: number }>(
      `select count(*)::int as n from pg_tables where schemaname not in ('pg_catalog', 'information_schema')`,
    );
    const o = await client.query<{ n: number; db: string }>(
      `select count(*)::int as n, current_database() as db from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid()`,
    );
    return { tables: t.rows[0]?.n ?? 0, others: o.rows[0]?.n ?? 0, name: o.rows[0]?.db ?? '' };
  });
  if (tables > 0 && !force) {
    throw new ToolError(
      `The database ${name} is not empty: pass --force to replace its ${tables} tables with the backup.`,
    );
  }
  if (tables > 0 && others > 0) {
    throw new ToolError(`Stop the server first: ${others} other connection(s) to the database ${name}.`);
  }
  const { dbname, env } = libpq(url);
  const args = [
    `--dbname=${dbname}`,
    '--no-owner',
    '--no-privileges',
    '--single-transaction',
    '--exit-on-error',
  ];
  await run(pgRestore, [...args, ...(tables > 0 ? ['--clean', '--if-exists'] : []), file], env);
  return withClient(url, (client) => checkRestored(client, key));
}
