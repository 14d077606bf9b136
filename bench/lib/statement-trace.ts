import type { PGlite, Transaction } from '@electric-sql/pglite';
import { now } from './sse-load';

/** One statement as the embedded database ran it: when it was asked for, began and ended (epoch ms). */
export interface TracedStatement {
  asked: number;
  began: number;
  ended: number;
  text: string;
}

/**
 * Records every statement a PGlite client runs, for the news-to-order bench's `BENCH_TRACE=1`. PGlite
 * runs one statement at a time, so a statement began when it was asked for or when the one before it
 * ended, whichever was later: `ended - began` is its own time and `began - asked` its wait behind
 * others. Wraps the client's own methods, as the server's handle calls them (its queries, a
 * transaction's, and `exec`); `stop()` puts them back.
 */
export function traceStatements(client: PGlite): { statements: TracedStatement[]; stop(): void } {
  const statements: TracedStatement[] = [];
  let lastEnd = 0;
  const timed = <T>(text: string, run: () => Promise<T>): Promise<T> => {
    const asked = now();
    return run().finally(() => {
      const ended = now();
      statements.push({ asked, began: Math.max(asked, lastEnd), ended, text: text.replace(/\s+/g, ' ') });
      lastEnd = ended;
    });
  };
  const { query, exec, transaction } = client;
  const [ownQuery, ownExec, ownTransaction] = [
    query.bind(client),
    exec.bind(client),
    transaction.bind(client),
  ];
  client.query = (text, params, opts) => timed(text, () => ownQuery(text, params, opts));
  client.exec = (text, opts) => timed(text, () => ownExec(text, opts));
  client.transaction = (callback) =>
    ownTransaction((tx: Transaction) => {
      const txQuery = tx.query.bind(tx);
      tx.query = (text, params, opts) => timed(text, () => txQuery(text, params, opts));
      return callback(tx);
    });
  return {
    statements,
    stop() {
      client.query = query;
      client.exec = exec;
      client.transaction = transaction;
    },
  };
}

/** The statement's verb and table, short enough for a line ("insert rule_decisions", "create table"). */
export function statementName(text: string): string {
  const words = text.trim().replace(/"/g, '').split(/\s+/);
  const verb = (words[0] ?? '').toLowerCase();
  const after = (word: string) => {
    const at = words.findIndex((w) => w.toLowerCase() === word);
    return at < 0 ? undefined : words[at + 1];
  };
  const table =
    verb === 'insert'
      ? after('into')
      : verb === 'update'
        ? words[1]
        : verb === 'select' || verb === 'delete'
          ? after('from')
          : words[1];
  return `${verb} ${table ?? ''}`.trim();
}

/**
 * Lines for one headline: each statement asked for from `from` to `to` (epoch ms), with when it was
 * asked for, began and ended relative to `from`; then how long the database was busy in that time.
 */
export function timeline(statements: readonly TracedStatement[], from: number, to: number): string[] {
  const lines: string[] = [];
  const at = (t: number) => (t - from).toFixed(1).padStart(6);
  for (const s of within(statements, from, to)) {
    lines.push(`${at(s.asked)} ${at(s.began)} ${at(s.ended)}  ${statementName(s.text)}`);
  }
  lines.push(
    `database busy ${busyMs(statements, from, to).toFixed(1)} ms of the ${(to - from).toFixed(0)} ms shown`,
  );
  return lines;
}

/** How long, from `from` to `to`, the database ran statements asked for in that time. */
export function busyMs(statements: readonly TracedStatement[], from: number, to: number): number {
  return within(statements, from, to).reduce(
    (sum, s) => sum + Math.max(0, Math.min(s.ended, to) - s.began),
    0,
  );
}

const within = (statements: readonly TracedStatement[], from: number, to: number) =>
  statements.filter((s) => s.asked >= from && s.asked < to);
