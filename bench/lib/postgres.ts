import pg from 'pg';

/** PostgreSQL at `adminUrl` answers, or the reason it does not. */
export async function postgresProblem(adminUrl: string): Promise<string | null> {
  try {
    await admin(adminUrl, 'SELECT 1');
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** A fresh database next to `adminUrl`'s; `drop` removes it, connections still open included. */
export async function freshDatabase(
  adminUrl: string,
  name: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  await admin(adminUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => admin(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}

/**
 * Runs `measure` on PGlite, then, when `BENCH_DATABASE_URL` is set, again on a fresh PostgreSQL database
 * next to it (dropped afterwards). `measure` gets the database URL, or nothing for PGlite.
 */
export async function onEachDatabase(
  name: string,
  measure: (target: 'pglite' | 'postgres', databaseUrl?: string) => Promise<void>,
): Promise<void> {
  await measure('pglite');
  const adminUrl = process.env.BENCH_DATABASE_URL;
  if (adminUrl === undefined || adminUrl === '') return;
  const database = await freshDatabase(adminUrl, `bench_${name}_${process.pid}`);
  try {
    await measure('postgres', database.url);
  } finally {
    await database.drop();
  }
}

async function admin(url: string, statement: string): Promise<void> {
  await query(url, statement);
}

/** One statement on a connection of its own. */
export async function query<R extends pg.QueryResultRow>(
  url: string,
  statement: string,
  params: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return (await client.query<R>(statement, params)).rows;
  } finally {
    await client.end();
  }
}
