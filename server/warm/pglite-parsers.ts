import { PGlite, types, type PGliteOptions, type QueryOptions, type Transaction } from '@electric-sql/pglite';

/**
 * The types Drizzle reads as text from PGlite (its column mappers make Dates of them): timestamps with
 * and without zone, intervals, dates, and the arrays of numerics, timestamps, intervals and dates.
 */
const TEXT_TYPES: ReadonlySet<number> = new Set([
  types.TIMESTAMP,
  types.TIMESTAMPTZ,
  types.INTERVAL,
  types.DATE,
  1231,
  1115,
  1185,
  1187,
  1182,
]);

const asText = (value: string) => value;
const PROBE = '2000-01-01 00:00:00+00';

/**
 * Drizzle passes those parsers with every statement, and PGlite merges what a statement passes into a
 * copy of its whole table of parsers (318 types): ~125 µs a statement here, more than most of ours take
 * to run. This client holds them in its own table once, and a statement that passes only them (each one
 * returning its text as given) goes without; any other parsers are passed on as they came.
 */
export function withoutTextParsers(options: QueryOptions | undefined): QueryOptions | undefined {
  const parsers = options?.parsers;
  if (options === undefined || parsers === undefined) return options;
  for (const [type, parse] of Object.entries(parsers)) {
    const id = Number(type);
    if (!TEXT_TYPES.has(id) || parse(PROBE, id) !== PROBE) return options;
  }
  const { parsers: _merged, ...rest } = options;
  return rest;
}

/**
 * A PGlite client, ready, that reads Drizzle's text types as text in its own table, so that Drizzle's
 * statements (and a transaction's) need not pass them. Its direct `query` calls read those types as text
 * too. (The table is set once the client is ready: PGlite puts its array parsers in it while it starts.)
 */
export async function openPglite(options: PGliteOptions): Promise<PGlite> {
  const client = new PGlite(options);
  await client.waitReady;
  for (const type of TEXT_TYPES) client.parsers[type] = asText;
  const query = client.query.bind(client);
  const transaction = client.transaction.bind(client);
  const lighter = (tx: Transaction): Transaction => {
    const txQuery = tx.query.bind(tx);
    tx.query = (text, params, opts) => txQuery(text, params, withoutTextParsers(opts));
    return tx;
  };
  client.query = (text, params, opts) => query(text, params, withoutTextParsers(opts));
  client.transaction = (callback) => transaction((tx) => callback(lighter(tx)));
  return client;
}
