import { sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { getTableConfig } from 'drizzle-orm/pg-core';

/**
 * Statements of one shape that independent callers issue at the same moment (the orders thirty users'
 * rules place for one headline), run as one statement. A call waits only until the promises already
 * settled have run (a microtask), so that the callers woken by the same answer join it and a lone call
 * is not delayed; while a batch runs, new calls gather for the next. The database runs one statement at a time (PGlite) or a few (a pool), and a statement's fixed
 * cost is far above a row's: thirty fills become one insert instead of thirty round trips in a queue.
 *
 * A batch that fails is run again one call at a time, so that only the call at fault sees its error
 * (a unique violation, say) and the others are unaffected.
 */
/** Counts over every batcher of the process: statements run for many calls, and batches run again singly. */
export const batchStats = { batches: 0, rows: 0, fallbacks: 0 };

export class Batcher<I, O> {
  private queue: { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = [];
  private scheduled = false;
  private running = false;

  constructor(
    /** Runs the items as one statement; answers one result per item, in the items' order. */
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly max = 500,
  ) {}

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.running) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.max);
        await this.runBatch(batch);
      }
    } finally {
      this.running = false;
    }
  }

  private async runBatch(batch: typeof this.queue): Promise<void> {
    if (batch.length > 1) {
      try {
        const out = await this.run(batch.map((b) => b.item));
        if (out.length !== batch.length) throw new Error(`batch answered ${out.length} of ${batch.length}`);
        batchStats.batches += 1;
        batchStats.rows += batch.length;
        batch.forEach((b, i) => b.resolve(out[i] as O));
        return;
      } catch {
        // One at a time below: each call gets its own answer or error.
        batchStats.fallbacks += 1;
      }
    }
    for (const b of batch) {
      try {
        const [out] = await this.run([b.item]);
        b.resolve(out as O);
      } catch (err) {
        b.reject(err);
      }
    }
  }
}

/**
 * `UPDATE table SET … FROM (VALUES …) WHERE table.key = v.key`: one statement for many rows, each with
 * its own values. `keys` are the columns that find a row (its primary key or a unique index), and every
 * row sets the same `columns`, named by their table property.
 */
export function updateFromValues<T extends PgTable>(
  table: T,
  keys: readonly PgColumn[],
  columns: readonly string[],
  rows: readonly { key: readonly unknown[]; set: Record<string, unknown> }[],
): SQL {
  const config = getTableConfig(table);
  const byProperty = table as unknown as Record<string, PgColumn>;
  const cols = columns.map((name) => {
    const column = byProperty[name];
    if (column === undefined) throw new Error(`no column ${name} on ${config.name}`);
    return column;
  });
  const ident = (name: string) => sql.raw(`"${name.replaceAll('"', '""')}"`);
  const typed = (column: PgColumn, value: unknown) =>
    sql`${value === undefined || value === null ? null : column.mapToDriverValue(value)}::${sql.raw(castOf(column))}`;
  const keyName = (i: number) => ident(`__key${i}`);
  const values = sql.join(
    rows.map(
      (row) =>
        sql`(${sql.join(
          [
            ...keys.map((k, i) => typed(k, row.key[i])),
            ...cols.map((c, i) => typed(c, row.set[columns[i] as string])),
          ],
          sql`, `,
        )})`,
    ),
    sql`, `,
  );
  const names = sql.join([...keys.map((_, i) => keyName(i)), ...cols.map((c) => ident(c.name))], sql`, `);
  const assignments = sql.join(
    cols.map((c) => sql`${ident(c.name)} = v.${ident(c.name)}`),
    sql`, `,
  );
  const match = sql.join(
    keys.map((k, i) => sql`${table}.${ident(k.name)} = v.${keyName(i)}`),
    sql` and `,
  );
  return sql`update ${table} set ${assignments} from (values ${values}) as v(${names}) where ${match}`;
}

/** The type a value is cast to for a column: a serial column holds its integer type. */
function castOf(column: PgColumn): string {
  const type = column.getSQLType();
  return SERIAL[type] ?? type;
}

const SERIAL: Record<string, string> = { smallserial: 'smallint', serial: 'integer', bigserial: 'bigint' };
