import { getTableColumns, is, SQL, sql, StringChunk, type SQLChunk } from 'drizzle-orm';
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
 * One array parameter per column, read back as rows by `unnest`: a statement's text and its parameter
 * count stay the same whatever the number of rows, so the database parses a short statement instead of
 * one with a parameter per value, and building it costs one pass over the values.
 *
 * The statement is handed over flat, its text in a few pieces between the arrays, with the pieces of
 * each shape (table, columns, options) written once: drizzle's builder walks every nested fragment and
 * tests each against a dozen kinds, ~0.2-0.3 ms a statement here, more than many of them take to run.
 */
function unnestChunks(
  out: SQLChunk[],
  head: string,
  columns: readonly PgColumn[],
  count: number,
  valueAt: (row: number, column: number) => unknown,
): void {
  let text = `${head}unnest(`;
  columns.forEach((column, i) => {
    const values = new Array<string | null>(count);
    for (let k = 0; k < count; k++) values[k] = driverValue(column, valueAt(k, i));
    out.push(new StringChunk(text), arrayLiteral(values) as unknown as SQLChunk);
    text = `::${castOf(column)}[]${i < columns.length - 1 ? ', ' : ')'}`;
  });
  out.push(new StringChunk(text));
}

/** `values` as one array parameter of SQL type `type` (`int`, `uuid`, …): for raw statements over many rows. */
export function arrayOf(type: string, values: readonly (string | number | Date | null)[]): SQL {
  const text = arrayLiteral(
    values.map((v) => (v === null ? null : v instanceof Date ? v.toISOString() : String(v))),
  );
  return sql`${text}::${sql.raw(type)}[]`;
}

/** A column's value as the driver sends it, as text (null stays null). */
function driverValue(column: PgColumn, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const mapped = column.mapToDriverValue(value) as unknown;
  if (mapped === null || mapped === undefined) return null;
  if (mapped instanceof Date) return mapped.toISOString();
  if (mapped instanceof Uint8Array)
    throw new Error(`column ${column.name}: binary values are not sent in arrays`);
  if (typeof mapped === 'object') return JSON.stringify(mapped);
  return String(mapped as string | number | boolean | bigint);
}

/** `{"a","b",NULL}`: every element quoted, so that no value is read as a separator or as NULL. */
function arrayLiteral(values: readonly (string | null)[]): string {
  let text = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as string | null;
    if (i > 0) text += ',';
    if (v === null) text += 'NULL';
    else if (v.includes('"') || v.includes('\\')) text += `"${v.replace(/[\\"]/g, '\\$&')}"`;
    else text += `"${v}"`;
  }
  return `${text}}`;
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The table's columns by property name. */
function columnsOf(table: PgTable, names: readonly string[]): PgColumn[] {
  const byProperty = table as unknown as Record<string, PgColumn>;
  return names.map((name) => {
    const column = byProperty[name];
    if (column === undefined) throw new Error(`no column ${name} on ${getTableConfig(table).name}`);
    return column;
  });
}

/**
 * `INSERT … SELECT * FROM unnest(…)`: many rows in one statement of fixed shape. The columns are those
 * any row gives a value for, and those whose default drizzle computes; a column no row gives is left
 * to the database's default. A row that leaves out a column another row gives gets that column's
 * default from the schema (`$defaultFn` or a constant), or null, as drizzle's own insert would give
 * it; a default only the database knows (`now()`) must then be given by every row.
 */
export function insertRows<T extends PgTable>(
  table: T,
  rows: readonly T['$inferInsert'][],
  opts: {
    /** The columns of the unique index whose conflicts skip a row. */
    onConflictDoNothing?: readonly PgColumn[];
    /** The predicate of that index when it is partial (`… where external_id is not null`). */
    conflictWhere?: SQL;
    /** A query that, when it finds a row, stops the insert (`… where not exists (unless)`). */
    unless?: SQL;
    /**
     * A condition each row must meet to go in; it names the row's columns as `"row"."column"` (the
     * rows are read as `unnest(…) as "row"(…columns)`).
     */
    rowsWhere?: SQL;
    returning?: readonly PgColumn[] | 'all';
  } = {},
): SQL {
  const { computed } = shapeOf(table);
  const given = new Set<string>();
  for (const row of rows) {
    const r = row as Record<string, unknown>;
    for (const key in r) if (r[key] !== undefined) given.add(key);
  }
  // Columns whose default drizzle computes (`$defaultFn`) are always sent, as its own insert sends them.
  for (const property of computed) given.add(property);
  const names = [...given];
  const columns = columnsOf(table, names);
  const chunks: SQLChunk[] = [];
  // One array per column, straight from the rows: a headline's batch is a few hundred values.
  unnestChunks(chunks, insertHead(table, columns), columns, rows.length, (k, i) => {
    const value = (rows[k] as Record<string, unknown>)[names[i] as string];
    return value === undefined ? defaultOf(columns[i] as PgColumn) : value;
  });
  if (opts.rowsWhere !== undefined) {
    chunks.push(
      new StringChunk(` as "row"(${namesOf(columns)}) where (`),
      opts.rowsWhere,
      new StringChunk(')'),
    );
  }
  if (opts.unless !== undefined) {
    const where = opts.rowsWhere === undefined ? ' where' : ' and';
    chunks.push(new StringChunk(`${where} not exists (`), opts.unless, new StringChunk(')'));
  }
  if (opts.onConflictDoNothing !== undefined) {
    chunks.push(new StringChunk(` on conflict (${namesOf(opts.onConflictDoNothing)})`));
    if (opts.conflictWhere !== undefined) chunks.push(new StringChunk(' where '), opts.conflictWhere);
    chunks.push(new StringChunk(' do nothing'));
  }
  if (opts.returning !== undefined) {
    chunks.push(
      new StringChunk(opts.returning === 'all' ? ' returning *' : ` returning ${namesOf(opts.returning)}`),
    );
  }
  return new SQL(chunks);
}

/** `"a", "b"`: the columns' names, quoted. */
const namesOf = (columns: readonly PgColumn[]) => columns.map((c) => quoted(c.name)).join(', ');

/** `insert into "table" ("a", "b") select * from `, written once per table and set of columns. */
const insertHeads = new WeakMap<PgTable, Map<string, string>>();
function insertHead(table: PgTable, columns: readonly PgColumn[]): string {
  let heads = insertHeads.get(table);
  if (heads === undefined) {
    heads = new Map();
    insertHeads.set(table, heads);
  }
  const key = columns.map((c) => c.name).join('\0');
  let head = heads.get(key);
  if (head === undefined) {
    head = `insert into ${tableName(table)} (${namesOf(columns)}) select * from `;
    heads.set(key, head);
  }
  return head;
}

/** The table's name as drizzle writes it: quoted, with its schema when it has one (read once a table). */
const tableNames = new WeakMap<PgTable, string>();
function tableName(table: PgTable): string {
  let text = tableNames.get(table);
  if (text === undefined) {
    const { name, schema } = getTableConfig(table);
    text = schema === undefined ? quoted(name) : `${quoted(schema)}.${quoted(name)}`;
    tableNames.set(table, text);
  }
  return text;
}

/** What {@link insertRows} and {@link completeRow} need of a table's columns, worked out once per table. */
const shapes = new WeakMap<PgTable, { columns: [string, PgColumn][]; computed: string[] }>();
function shapeOf(table: PgTable) {
  let shape = shapes.get(table);
  if (shape === undefined) {
    const columns = Object.entries(getTableColumns(table));
    shape = {
      columns,
      computed: columns.filter(([, column]) => column.defaultFn !== undefined).map(([property]) => property),
    };
    shapes.set(table, shape);
  }
  return shape;
}

/**
 * An inserted row as a select would read it, from what was sent: each column left out holds its
 * default (`$defaultFn` or a constant) or null. A column whose default the database computes must be
 * given (the `id` the insert returned, say).
 */
export function completeRow<T extends PgTable>(table: T, row: T['$inferInsert']): T['$inferSelect'] {
  const full: Record<string, unknown> = {};
  for (const [property, column] of shapeOf(table).columns) {
    const value = (row as Record<string, unknown>)[property];
    full[property] = value === undefined ? defaultOf(column) : value;
  }
  return full as T['$inferSelect'];
}

/** The value drizzle's insert gives a column a row leaves out. */
function defaultOf(column: PgColumn): unknown {
  if (column.defaultFn !== undefined) return column.defaultFn();
  if (column.default !== undefined && !is(column.default, SQL)) return column.default;
  if (column.hasDefault) throw new Error(`column ${column.name}: give its value in every row or none`);
  return null;
}

/**
 * The rows a raw statement returned (`db.execute`), as drizzle's typed queries give them: keyed by
 * property name, each value mapped by its column (dates, numbers of bigint columns, JSON). Only the
 * columns the statement returned are set.
 */
export function rowsOf<T extends PgTable>(table: T, result: unknown): T['$inferSelect'][] {
  const raw = (result as { rows: Record<string, unknown>[] }).rows;
  const columns = Object.entries(getTableColumns(table));
  return raw.map((r) => {
    const row: Record<string, unknown> = {};
    for (const [property, column] of columns) {
      if (!(column.name in r)) continue;
      const value = r[column.name];
      row[property] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
    }
    return row as T['$inferSelect'];
  });
}

/**
 * `UPDATE table SET … FROM unnest(…) WHERE table.key = v.key`: one statement for many rows, each with
 * its own values. `keys` are the columns that find a row (its primary key or a unique index), and every
 * row sets the same `columns`, named by their table property.
 */
export function updateFromValues<T extends PgTable>(
  table: T,
  keys: readonly PgColumn[],
  columns: readonly string[],
  rows: readonly { key: readonly unknown[]; set: Record<string, unknown> }[],
): SQL {
  const cols = columnsOf(table, columns);
  const keyName = (i: number) => quoted(`__key${i}`);
  const name = tableName(table);
  const assignments = cols.map((c) => `${quoted(c.name)} = v.${quoted(c.name)}`).join(', ');
  const chunks: SQLChunk[] = [];
  unnestChunks(chunks, `update ${name} set ${assignments} from `, [...keys, ...cols], rows.length, (k, i) => {
    const row = rows[k] as (typeof rows)[number];
    return i < keys.length ? row.key[i] : row.set[columns[i - keys.length] as string];
  });
  const names = [...keys.map((_, i) => keyName(i)), ...cols.map((c) => quoted(c.name))].join(', ');
  const match = keys.map((k, i) => `${name}.${quoted(k.name)} = v.${keyName(i)}`).join(' and ');
  chunks.push(new StringChunk(` as v(${names}) where ${match}`));
  return new SQL(chunks);
}

/** The type a value is cast to for a column: a serial column holds its integer type. */
function castOf(column: PgColumn): string {
  const type = column.getSQLType();
  return SERIAL[type] ?? type;
}

const SERIAL: Record<string, string> = { smallserial: 'smallint', serial: 'integer', bigserial: 'bigint' };
