import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { busyMs, statementName, timeline, traceStatements, type TracedStatement } from './statement-trace';

describe('statement trace', () => {
  const client = new PGlite();
  afterAll(() => client.close());

  it('records queries, exec and a transaction’s statements in the order the database ran them', async () => {
    await client.exec('create table t (id int primary key, v text)');
    const trace = traceStatements(client);
    await client.exec('delete from t');
    await Promise.all([
      client.query('insert into "t" ("id", "v") values ($1, $2)', [1, 'a']),
      client.query('select "id" from "t" where "id" = $1', [1]),
    ]);
    await client.transaction(async (tx) => {
      await tx.query('update "t" set "v" = $1 where "id" = $2', ['b', 1]);
    });
    trace.stop();
    await client.query('select 1');

    expect(trace.statements.map((s) => statementName(s.text))).toEqual([
      'delete t',
      'insert t',
      'select t',
      'update t',
    ]);
    for (const [i, s] of trace.statements.entries()) {
      expect(s.began).toBeGreaterThanOrEqual(s.asked);
      expect(s.ended).toBeGreaterThanOrEqual(s.began);
      // One at a time: a statement begins once the one before it has ended.
      if (i > 0) expect(s.began).toBeGreaterThanOrEqual(trace.statements[i - 1]!.ended);
    }
    // The second of the two asked together waited for the first.
    const [, insert, select] = trace.statements;
    expect(select!.asked).toBeLessThan(insert!.ended);
    expect(select!.began).toBe(insert!.ended);
  });

  it('names a statement by its verb and table', () => {
    expect(statementName(' insert into "rule_decisions" ("id") select * from unnest($1)')).toBe(
      'insert rule_decisions',
    );
    expect(statementName('update "signals" set "rev" = 1')).toBe('update signals');
    expect(statementName('\n select "id" from "signals" where true')).toBe('select signals');
    expect(statementName('select 1')).toBe('select');
    expect(statementName('create table t (id int)')).toBe('create table');
  });

  it('counts the database busy only within the window, and lists the statements asked in it', () => {
    const at = (asked: number, began: number, ended: number, text: string): TracedStatement => ({
      asked,
      began,
      ended,
      text,
    });
    const statements = [
      at(0, 0, 5, 'insert into "signals" ("a") values ($1)'),
      at(2, 5, 8, 'update "signals" set "a" = $1'),
      at(9, 9, 14, 'select "id" from "rules"'),
      at(20, 20, 30, 'select 1'),
    ];
    expect(busyMs(statements, 1, 12)).toBe(3 + 3);
    expect(timeline(statements, 1, 12)).toEqual([
      '   1.0    4.0    7.0  update signals',
      '   8.0    8.0   13.0  select rules',
      'database busy 6.0 ms of the 11 ms shown',
    ]);
  });
});
