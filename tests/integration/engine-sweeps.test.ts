import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../server/db/client';
import { ruleDecisions, rules, users } from '../../server/db/schema';
import { RulesRepo } from '../../server/modules/rules/rules.repo';
import { useDatabase } from '../helpers/db';

interface Client {
  query(text: unknown, params?: unknown, ...rest: unknown[]): Promise<unknown>;
}
const clientOf = (database: Database) =>
  (database.db as unknown as { session: { client: Client } }).session.client;

/** The statements a repo call sent, as the embedded database received them. */
async function statementsOf(database: Database, run: () => Promise<unknown>) {
  const client = clientOf(database);
  const sent: { text: string; params: unknown[] }[] = [];
  const query = client.query;
  client.query = function (this: unknown, text, params, ...rest) {
    sent.push({ text: String(text), params: (params as unknown[] | undefined) ?? [] });
    return query.call(this, text, params, ...rest);
  };
  try {
    await run();
  } finally {
    client.query = query;
  }
  return sent;
}

/** The names of the nodes of a statement's plan that read `rule_decisions` row by row. */
async function seqScans(database: Database, statement: { text: string; params: unknown[] }) {
  const result = (await clientOf(database).query(
    `explain (format json) ${statement.text}`,
    statement.params,
  )) as {
    rows: { 'QUERY PLAN': unknown }[];
  };
  const found: string[] = [];
  const walk = (node: Record<string, unknown>) => {
    if (node['Node Type'] === 'Seq Scan' && node['Relation Name'] === 'rule_decisions')
      found.push(String(node['Node Type']));
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
  };
  const plan = result.rows[0]?.['QUERY PLAN'];
  const parsed = (typeof plan === 'string' ? JSON.parse(plan) : plan) as { Plan: Record<string, unknown> }[];
  walk(parsed[0]!.Plan);
  return found;
}

// The engine's safety net runs every second or two for as long as the server runs: what it reads must
// not grow with the ledger. The embedded database never gathers statistics, so the plans are the ones
// a long-running `npm start` gets.
describe("the engine's periodic reads find the few rows they want in a large ledger", () => {
  const target = useDatabase('pglite');
  let database: Database;
  let repo: RulesRepo;

  beforeAll(async () => {
    database = await target.open();
    repo = new RulesRepo(database.db);
    const [user] = await database.db
      .insert(users)
      .values({ email: 'sweeps@example.com', username: 'sweeps' })
      .returning({ id: users.id });
    const [rule] = await database.db
      .insert(rules)
      .values({ userId: user!.id, name: 'r', side: 'long', amountUsd: '200' })
      .returning({ id: rules.id });
    await database.db.execute(sql`
      insert into ${ruleDecisions} (user_id, rule_id, rule_name, rule_version, signal_id, asset, symbol, side,
        amount_usd, outcome, decided_at)
      select ${user!.id}, ${rule!.id}, 'r', 1, -n, 'BTC', 'BTCUSDT', 'long', 200,
        case when n % 4 = 0 then 'skipped' else 'fired' end, now() - n * interval '1 minute'
      from generate_series(1, 20000) n`);
    await database.db.insert(ruleDecisions).values([
      {
        userId: user!.id,
        ruleId: rule!.id,
        ruleName: 'r',
        ruleVersion: 1,
        signalId: 1,
        asset: 'ETH',
        symbol: 'ETHUSDT',
        side: 'long',
        amountUsd: '200',
        outcome: 'pending',
        decidedAt: new Date(Date.now() - 3_600_000),
      },
      {
        userId: user!.id,
        ruleId: rule!.id,
        ruleName: 'r',
        ruleVersion: 1,
        signalId: 2,
        asset: 'SOL',
        symbol: 'SOLUSDT',
        side: 'long',
        amountUsd: '200',
        outcome: 'asking',
        askExpiresAt: new Date(Date.now() - 60_000),
        decidedAt: new Date(Date.now() - 120_000),
      },
    ]);
  });
  afterAll(async () => {
    await database.close();
    await target.cleanup();
  });

  it('interrupted decisions: by the index of those pending', async () => {
    let found: Awaited<ReturnType<RulesRepo['pendingDecisions']>> = [];
    const sent = await statementsOf(database, async () => {
      found = await repo.pendingDecisions(new Date(Date.now() - 60_000));
    });
    expect(found.map((d) => d.signalId)).toEqual([1]);
    expect(sent).toHaveLength(1);
    expect(await seqScans(database, sent[0]!)).toEqual([]);
  });

  it('proposals whose window closed: by the index of those asking', async () => {
    const sent = await statementsOf(database, () => repo.expireAsking(new Date(Date.now() + 3_600_000)));
    expect(sent).toHaveLength(1);
    expect(await seqScans(database, sent[0]!)).toEqual([]);
  });

  it('open exits: by the index of those open', async () => {
    const sent = await statementsOf(database, () => repo.openExits());
    expect(sent).toHaveLength(1);
    expect(await seqScans(database, sent[0]!)).toEqual([]);
  });

  it('exits a stopped process left closing: by the same index', async () => {
    const sent = await statementsOf(database, () => repo.staleExits(new Date(Date.now() - 120_000)));
    expect(sent).toHaveLength(1);
    expect(await seqScans(database, sent[0]!)).toEqual([]);
  });
});
