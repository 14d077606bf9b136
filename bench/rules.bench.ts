import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { SYMBOLS } from '../src/contracts/symbols';
import { buildApp } from '../server/app';
import { loadConfig } from '../server/config';
import { openDatabase } from '../server/db/client';
import { riskSettings, ruleDecisions, rules, users } from '../server/db/schema';
import { toSignal } from '../server/modules/news/news-mapper';
import { NewsRepo } from '../server/modules/news/news.repo';
import { RuleIndex } from '../server/modules/rules/rule-index';
import { report } from './lib/report';

/**
 * The auto-trade engine under load: 10,000 active rules over 1,000 users, 100 completed signals a second
 * for 10 s, each order placed on the paper exchange. Latency runs from the signal's completion (it is
 * stored completed and announced at once) to the order's acknowledgement, as the decision ledger records
 * it. Beside it, the index's matching cost alone.
 */
const USERS = 1000;
const RULES = 10_000;
const RATE = Number(process.env.BENCH_RULES_RATE ?? 100);
const SECONDS = Number(process.env.BENCH_RULES_S ?? 10);
const SENTIMENTS = ['positive', 'negative', 'neutral'] as const;
const ASSETS = SYMBOLS.slice(0, 100).map((s) => s.ticker);

let seed = 42;
const rand = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};
const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;

/** Rules narrow enough that a signal matches about two of them: 5-point impact bands. */
function ruleRows(userIds: string[]) {
  return Array.from({ length: RULES }, (_, i) => {
    const low = Math.floor(rand() * 95);
    return {
      userId: userIds[i % userIds.length] as string,
      name: `bench ${i}`,
      asset: pick(ASSETS),
      sentiment: pick(SENTIMENTS),
      minImpact: low,
      maxImpact: low + 5,
      side: rand() < 0.5 ? ('long' as const) : ('short' as const),
      amountUsd: '120',
      createdAt: new Date(Date.now() - RULES + i),
    };
  });
}

function matchingAlone(rows: ReturnType<typeof ruleRows>): number {
  const index = new RuleIndex(rows.map((r, i) => ({ ...r, id: `r${i}` })));
  const signals = Array.from({ length: 10_000 }, () => ({
    assets: [pick(ASSETS)],
    sentiment: pick(SENTIMENTS),
    impact: rand() * 100,
    texts: ['Binance will list the asset', 'Binance Announcements'],
  }));
  let matched = 0;
  const started = process.hrtime.bigint();
  for (let round = 0; round < 10; round++) for (const s of signals) matched += index.match(s).length;
  const ns = Number(process.hrtime.bigint() - started) / (signals.length * 10);
  report('rules', 'matches_per_signal', matched / (signals.length * 10), 'rules');
  return ns / 1000;
}

/** `BENCH_DATABASE_URL` runs the same load on Postgres (a fresh schema, dropped afterwards). */
const pgUrl = process.env.BENCH_DATABASE_URL;
const schema = `bench_rules_${process.pid}`;
const dataDir = await mkdtemp(path.join(tmpdir(), 'sc-bench-rules-'));
const database = await openDatabase(
  pgUrl ? { kind: 'postgres', url: pgUrl, schema, poolSize: 8 } : { kind: 'pglite-memory' },
);
report('rules', pgUrl ? 'database_postgres' : 'database_pglite', 1, 'flag');
let app: FastifyInstance | undefined;
try {
  const userRows = await database.db
    .insert(users)
    .values(Array.from({ length: USERS }, (_, i) => ({ email: `r${i}@example.com`, username: `r${i}` })))
    .returning({ id: users.id });
  const userIds = userRows.map((u) => u.id);
  const seeded = ruleRows(userIds);
  for (let i = 0; i < seeded.length; i += 1000)
    await database.db.insert(rules).values(seeded.slice(i, i + 1000));
  // Limits that let every match trade: the figure is the order path, not the skips.
  await database.db.insert(riskSettings).values(
    userIds.map((userId) => ({
      userId,
      maxOrderUsd: '1000000',
      dailyBudgetUsd: '100000000',
      maxPositions: 200,
      cooldownMinutes: 0,
      maxAgeSeconds: 600,
    })),
  );
  report('rules', 'matching_alone_per_signal', matchingAlone(seeded), 'µs');

  const config = loadConfig(
    {
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATA_DIR: dataDir,
      MARKET_SOURCE: 'sim',
      NEWS_SOURCES: 'webhook',
    },
    'bench',
  );
  let api: FastifyInstance | undefined;
  app = await buildApp(config, { logger: false, database, onApi: (scope) => (api = scope) });
  await app.ready();
  if (api === undefined) throw new Error('no /api scope');
  const engine = api.rules.engine;
  await engine.reload();
  report('rules', 'active_rules', engine.ruleCount, 'rules');
  // Premium for everyone, so that no rule is beyond a plan's limit.
  api.plans.limitsOf = async () => ({ activeRules: null, premiumSources: true, prioritySupport: true });

  // Accounts with history, as active traders have: one small order each before the clock starts.
  for (const userId of userIds) {
    await api.trading.placeOrder(
      userId,
      { symbol: 'BTCUSDT', side: 'long', type: 'market', amount: 150 },
      `warm-${userId}`,
    );
  }

  const repo = new NewsRepo(database.db);
  const total = RATE * SECONDS;
  const startedAt = performance.now();
  for (let n = 0; n < total; n++) {
    const due = startedAt + (n * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const asset = pick(ASSETS);
    const receivedAt = new Date();
    const row = await repo.insertUnlessCopy(
      {
        source: 'webhook',
        externalId: `bench-${n}`,
        fingerprint: `bench-${n}`,
        content: `bench signal ${n} about ${asset}`,
        url: null,
        icon: null,
        sourceName: 'Bench',
        username: null,
        mediaUrls: [],
        quote: null,
        publishedAt: null,
        receivedAt,
        status: 'completed',
        asset,
        assets: [asset],
        eventType: null,
        impactScore: rand() * 100,
        sentiment: pick(SENTIMENTS),
        reasoning: 'bench',
        engine: 'local',
        initialPrices: {},
        alsoReportedBy: [],
      },
      new Date(receivedAt.getTime() - 30 * 60_000),
    );
    if (row !== null) await app.bus.publish('signal.published', { rev: row.rev, signal: toSignal(row) });
  }
  const sendSeconds = (performance.now() - startedAt) / 1000;
  // Let the engine finish what is queued (a minute at most).
  const deadline = performance.now() + 60_000;
  while (engine.stats.evaluated < total && performance.now() < deadline) {
    await engine.pump();
    await new Promise((r) => setTimeout(r, 100));
  }
  const drainSeconds = (performance.now() - startedAt) / 1000;
  const rows = await database.db.select().from(ruleDecisions);
  const fired = rows.filter((r) => r.outcome === 'fired');
  const latencies = fired.map((r) => r.latencyMs ?? NaN).sort((a, b) => a - b);
  report('rules', 'signals_sent', total, 'signals');
  report('rules', 'signals_per_s', total / sendSeconds, 'signals/s');
  report('rules', 'orders_fired', fired.length, 'orders');
  report('rules', 'decisions_skipped', rows.length - fired.length, 'decisions');
  report('rules', 'orders_per_s', fired.length / drainSeconds, 'orders/s');
  report('rules', 'completed_to_ack_p50', percentile(latencies, 0.5), 'ms');
  report('rules', 'completed_to_ack_p99', percentile(latencies, 0.99), 'ms');
  report('rules', 'completed_to_ack_max', latencies.at(-1) ?? NaN, 'ms');
} finally {
  await app?.close();
  if (pgUrl) await database.db.execute(sql.raw(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
  await database.close();
  await rm(dataDir, { recursive: true, force: true });
}
