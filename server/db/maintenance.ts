import { sql } from 'drizzle-orm';
import type { Database, Db } from './client';

/**
 * Autovacuum's own defaults: a table is vacuumed once its dead rows pass 50 + 20 % of its live rows, or
 * once its oldest unfrozen transaction id is older than `vacuum_freeze_table_age` (a plain VACUUM then
 * freezes it).
 */
const DEAD_THRESHOLD = 50;
const DEAD_SCALE = 0.2;
const FREEZE_AGE = 150_000_000;

/**
 * How often the embedded database looks for tables to vacuum: autovacuum's own naptime. A vacuum holds
 * the one connection and its work grows with the pages changed since the last one, so often and short
 * beats rarely and long (after 10 s of 100 headlines/s: 7 ms for the decisions, 3 ms for the signals).
 */
export const VACUUM_EVERY_MS = 60_000;

export interface VacuumDue {
  schema: string;
  table: string;
  dead: number;
  live: number;
  xidAge: number;
}

/** The tables past autovacuum's thresholds, the most dead rows first. */
export async function tablesDue(db: Db): Promise<VacuumDue[]> {
  const result = await db.execute(sql`
    select t.schemaname as schema, t.relname as table, t.n_dead_tup as dead, t.n_live_tup as live,
      age(c.relfrozenxid) as xid_age
    from pg_stat_user_tables t
    join pg_class c on c.oid = t.relid
    where t.n_dead_tup > ${DEAD_THRESHOLD}::int8 + ${DEAD_SCALE}::float8 * t.n_live_tup
      or age(c.relfrozenxid) > ${FREEZE_AGE}::int4
    order by t.n_dead_tup desc`);
  const rows = (result as unknown as { rows: Record<string, unknown>[] }).rows;
  return rows.map((r) => ({
    schema: String(r.schema),
    table: String(r.table),
    dead: Number(r.dead),
    live: Number(r.live),
    xidAge: Number(r.xid_age),
  }));
}

/**
 * Vacuums each table past the thresholds, one statement at a time (never ANALYZE: the plans stay the
 * ones the server was measured with). Answers what was vacuumed and how long each took.
 */
export async function vacuumDue(db: Db): Promise<{ table: string; dead: number; ms: number }[]> {
  const done: { table: string; dead: number; ms: number }[] = [];
  for (const due of await tablesDue(db)) {
    const started = performance.now();
    await db.execute(sql`vacuum ${sql.identifier(due.schema)}.${sql.identifier(due.table)}`);
    done.push({ table: due.table, dead: due.dead, ms: Math.round(performance.now() - started) });
  }
  return done;
}

interface MaintenanceLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * The embedded database's upkeep. PGlite runs PostgreSQL in single-user mode, where no autovacuum runs:
 * the space of updated and deleted rows is never reused, so a long-running server's busiest tables
 * (decisions, signals, order requests) grow without bound, and old rows are never frozen (PostgreSQL
 * stops taking writes ~2 billion transactions on). Every `everyMs` the tables past autovacuum's
 * thresholds are vacuumed; a vacuum visits only the pages changed since the last one, so a frequent
 * one stays short. PostgreSQL's own autovacuum does this on a server: nothing runs there. Returns the
 * stop, which waits for a vacuum under way.
 */
export function maintainEmbedded(
  database: Database,
  log: MaintenanceLog,
  everyMs = VACUUM_EVERY_MS,
): () => Promise<void> {
  if (database.driver !== 'pglite') return () => Promise.resolve();
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (running !== null) return;
    running = vacuumDue(database.db)
      .then(
        (done) => {
          if (done.length > 0) log.info({ tables: done }, 'embedded database vacuumed');
        },
        (err: unknown) => log.warn({ err }, 'embedded database not vacuumed'),
      )
      .finally(() => {
        running = null;
      });
  }, everyMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
