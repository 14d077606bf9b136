import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { PGlite } from '@electric-sql/pglite';
import { openDatabase, pgliteDir, type Database } from '../server/db/client';
import { compileWasmOptimised } from '../server/warm/wasm-tiering';
import { ruleDecisions } from '../server/db/schema';
import { request, signUpTraders, startBundle } from './lib/bundle-server';
import {
  clients,
  COINS,
  INGEST,
  loadAverage,
  positiveHeadline,
  postDirect,
  reportByHeadline,
  seedHistory,
  seedRules,
  seedUsers,
  startServer,
  tokens,
  traceHeadlines,
  type Held,
  type Posted,
} from './lib/news-to-order';
import { report } from './lib/report';
import { traceStatements } from './lib/statement-trace';
import { now, sleep, sortedPercentile, story } from './lib/sse-load';

/**
 * News to position, stage by stage, on the server `npm start` runs (the embedded database, simulated
 * prices, the paper exchange, the webhook as the only source), started in this process and reached
 * over loopback HTTP and WebSockets like any client.
 *
 * `scenario` (default): USERS users, each with one rule (any asset, positive, impact 0-100, long 200
 * USDT) with 30 days of decisions behind it (BENCH_HISTORY_DAYS, 20 a day) and an open positions socket,
 * and one SSE client on the signal stream; HEADLINES positive headlines about different coins, GAP_MS
 * apart, posted to the webhook, the first of them the first headline the server sees (BENCH_WARMUP=1
 * posts one of its own before). Every stage is measured from the moment the headline is posted:
 *   admitted      the webhook answered (the item is stored, its `analyzing` card published)
 *   analysed      the completed signal is stored and announced on the bus
 *   streamed      the completed card reached the SSE client
 *   decided       a rule's decision was claimed in the ledger (decided_at), one per user
 *   acknowledged  the paper exchange filled that order (acked_at)
 *   frame_sent    the server sent the user's positions socket a snapshot holding the new position (the
 *                 snapshot's own time, whole milliseconds)
 *   position      that socket received it (taken as the frame arrives, before any frame is read: the
 *                 thirty sockets are thirty traders, read by one process of clients)
 *
 * `load` (`BENCH_MODE=load npm run bench -- news-to-order`): 10,000 active rules over 1,000
 * users, RATE headlines/s into the webhook for SECONDS; prints completed → acknowledged (from the bus's
 * completed event to the ledger's acked_at) and orders fired.
 *
 * Both run on PGlite, and again on a fresh PostgreSQL schema when `BENCH_DATABASE_URL` or
 * `TEST_DATABASE_URL` is set.
 *
 * `outside` (`BENCH_MODE=outside`, after `npm run build`): the scenario against the bundle `npm start`
 * runs, as a process of its own, its users signed up through the API; see `outside()` below.
 */
const MODE = process.env.BENCH_MODE ?? 'scenario';
const USERS = Number(process.env.BENCH_USERS ?? 30);
const HEADLINES = Number(process.env.BENCH_HEADLINES ?? 5);
const GAP_MS = Number(process.env.BENCH_GAP_MS ?? 2000);
const WARMUP = process.env.BENCH_WARMUP === '1';
const HISTORY_DAYS = Number(process.env.BENCH_HISTORY_DAYS ?? 30);
const HISTORY_PER_DAY = 20;
const LOAD_USERS = 1000;
const LOAD_RULES = Number(process.env.BENCH_RULES ?? 10_000);
const RATE = Number(process.env.BENCH_RATE ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PG_URL = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || '';
/**
 * `BENCH_TRACE=1`: on stderr, each headline's wait for its last position and the embedded database's
 * share of it, and the statements of the fastest and slowest headlines.
 */
const TRACE = process.env.BENCH_TRACE === '1';

async function scenario(target: string, database: Database, dataDir: string): Promise<void> {
  const bench = `news-to-order-${target}`;
  const userIds = await seedUsers(database, USERS, 'n2o');
  const server = await startServer(database, dataDir);
  const sign = tokens(server.secretsKey);
  const client = clients();
  try {
    const userTokens: string[] = [];
    for (const userId of userIds) {
      const token = await sign(userId);
      userTokens.push(token);
      const res = await fetch(`${server.base}/api/rules/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          ruleName: 'any positive',
          conditions: { sentiment: 'positive', min_impact: 0, max_impact: 100 },
          action: { type: 'trade', side: 'long', amount_usd: 200 },
        }),
      });
      if (res.status !== 201) throw new Error(`rule not saved: ${res.status} ${await res.text()}`);
    }
    await seedHistory(database, HISTORY_DAYS, HISTORY_PER_DAY);
    await client.ask({ cmd: 'connect', base: server.base, tokens: userTokens });
    await server.api.rules.engine.reload();
    const post = (n: number, content: string) =>
      client.ask<Posted>({ cmd: 'post', base: server.base, token: INGEST, content, externalId: `h${n}` });
    // The first headline after a start counts, as it does for a trader. BENCH_WARMUP=1 posts one of its
    // own first, that every rule trades, and leaves it out of the figures.
    if (WARMUP) {
      const warm = await post(-1, positiveHeadline(COINS.length - 1).content);
      if (warm.status !== 202) throw new Error(`ingest ${warm.status}`);
      await sleep(GAP_MS);
    }

    const stages: Record<string, number[]> = {
      admitted: [],
      analysed: [],
      streamed: [],
      decided: [],
      acknowledged: [],
      frame_sent: [],
      position: [],
    };
    const sent: { id: string; at: number; symbol: string }[] = [];
    const loads = [loadAverage()];
    const cpuBefore = process.cpuUsage();
    const trace =
      TRACE && database.driver === 'pglite'
        ? traceStatements((database.db as unknown as { $client: PGlite }).$client)
        : null;
    for (let n = 0; n < HEADLINES; n++) {
      const { content, symbol } = positiveHeadline(n);
      const posted = await post(n, content);
      if (posted.status !== 202 || posted.result?.result !== 'created' || posted.result.id === null) {
        throw new Error(`headline ${n} not created: ${posted.status} ${JSON.stringify(posted.result)}`);
      }
      stages.admitted?.push(posted.answered - posted.at);
      sent.push({ id: posted.result.id, at: posted.at, symbol });
      await sleep(Math.max(0, posted.at + GAP_MS - now()));
    }
    loads.push(loadAverage());
    await sleep(1000);
    const cpu = process.cpuUsage(cpuBefore);
    trace?.stop();

    const seen = await client.ask<{ completed: [string, number][]; held: Held[] }>({
      cmd: 'stats',
    });
    const streamed = new Map(seen.completed);
    const decisions = await database.db
      .select({
        signalId: ruleDecisions.signalId,
        outcome: ruleDecisions.outcome,
        decidedAt: ruleDecisions.decidedAt,
        ackedAt: ruleDecisions.ackedAt,
      })
      .from(ruleDecisions);
    let fired = 0;
    for (const s of sent) {
      const analysed = server.completedAt.get(s.id);
      const arrived = streamed.get(s.id);
      if (analysed !== undefined) stages.analysed?.push(analysed - s.at);
      if (arrived !== undefined) stages.streamed?.push(arrived - s.at);
      for (const d of decisions.filter((x) => String(x.signalId) === s.id)) {
        stages.decided?.push(d.decidedAt.getTime() - s.at);
        if (d.outcome === 'fired' && d.ackedAt !== null) {
          fired += 1;
          stages.acknowledged?.push(d.ackedAt.getTime() - s.at);
        }
      }
      for (const [, symbol, at, sentAt] of seen.held) {
        if (symbol !== s.symbol) continue;
        stages.frame_sent?.push(sentAt - s.at);
        stages.position?.push(at - s.at);
      }
    }
    report(bench, 'users', USERS, 'users');
    report(bench, 'headlines', HEADLINES, 'headlines');
    report(bench, 'orders_fired', fired, 'orders');
    report(bench, 'orders_expected', HEADLINES * USERS, 'orders');
    report(bench, 'position_frames', stages.position?.length ?? 0, 'frames');
    report(bench, 'position_frames_expected', HEADLINES * USERS, 'frames');
    for (const [stage, values] of Object.entries(stages)) {
      values.sort((a, b) => a - b);
      report(bench, `${stage}_p50`, sortedPercentile(values, 0.5), 'ms');
      report(bench, `${stage}_p99`, sortedPercentile(values, 0.99), 'ms');
    }
    reportByHeadline(bench, sent, seen.held);
    if (trace !== null) traceHeadlines(trace.statements, sent, seen.held);
    // The server's CPU (this process: the server and the bench's reads), ticks and sockets included.
    report(bench, 'server_cpu_per_headline', (cpu.user + cpu.system) / 1000 / HEADLINES, 'ms');
    report(bench, 'load_average_before', loads[0] ?? NaN, 'load');
    report(bench, 'load_average_after', loads[1] ?? NaN, 'load');
  } finally {
    client.exit();
    await server.app.close();
  }
}

/** 10,000 rules over 1,000 users, narrow enough (5-point impact bands) that a headline matches a few. */
async function load(target: string, database: Database, dataDir: string): Promise<void> {
  const bench = `news-to-order-load-${target}`;
  const userIds = await seedUsers(database, LOAD_USERS, 'n2l');
  await seedRules(database, userIds, LOAD_RULES);
  const server = await startServer(database, dataDir);
  try {
    server.api.plans.limitsOf = async () => ({
      activeRules: null,
      premiumSources: true,
      prioritySupport: true,
    });
    await server.api.rules.engine.reload();
    report(bench, 'active_rules', server.api.rules.engine.ruleCount, 'rules');
    // Accounts with history, as active traders have.
    for (const userId of userIds) {
      await server.api.trading.placeOrder(
        userId,
        { symbol: 'BTCUSDT', side: 'long', type: 'market', amount: 150 },
        `warm-${userId}`,
      );
    }
    const loads = [loadAverage()];
    const total = RATE * SECONDS;
    const started = now();
    const pending: Promise<unknown>[] = [];
    for (let n = 0; n < total; n++) {
      const wait = started + (n * 1000) / RATE - now();
      if (wait > 0) await sleep(wait);
      pending.push(
        postDirect(server.base, story(n, false), `l${n}`)
          .then((r) => r.arrayBuffer())
          .catch(() => undefined),
      );
    }
    await Promise.all(pending);
    const sendSeconds = (now() - started) / 1000;
    // Let the engine finish what is queued (a minute at most).
    const deadline = now() + 60_000;
    while (server.api.rules.engine.stats.evaluated < server.completedAt.size && now() < deadline) {
      await sleep(200);
    }
    await sleep(500);
    loads.push(loadAverage());
    const rows = await database.db
      .select({
        signalId: ruleDecisions.signalId,
        outcome: ruleDecisions.outcome,
        ackedAt: ruleDecisions.ackedAt,
      })
      .from(ruleDecisions);
    const fired = rows.filter((r) => r.outcome === 'fired' && r.ackedAt !== null);
    const latencies: number[] = [];
    for (const r of fired) {
      const completed = server.completedAt.get(String(r.signalId));
      if (completed !== undefined && r.ackedAt !== null) latencies.push(r.ackedAt.getTime() - completed);
    }
    latencies.sort((a, b) => a - b);
    report(bench, 'headlines_sent', total, 'headlines');
    report(bench, 'headlines_per_s', total / sendSeconds, 'headlines/s');
    report(bench, 'signals_completed', server.completedAt.size, 'signals');
    report(bench, 'orders_fired', fired.length, 'orders');
    report(bench, 'decisions_skipped', rows.length - fired.length, 'decisions');
    report(bench, 'completed_to_ack_p50', sortedPercentile(latencies, 0.5), 'ms');
    report(bench, 'completed_to_ack_p99', sortedPercentile(latencies, 0.99), 'ms');
    report(bench, 'completed_to_ack_max', latencies.at(-1) ?? NaN, 'ms');
    report(bench, 'load_average_before', loads[0] ?? NaN, 'load');
    report(bench, 'load_average_after', loads[1] ?? NaN, 'load');
  } finally {
    await server.app.close();
  }
}

/**
 * `outside` (`BENCH_MODE=outside`, after `npm run build`): the scenario against the bundle `npm start`
 * runs (dist/server/main.mjs), as a process of its own with an empty data folder, reached only as a
 * client reaches it: each user signs up and logs in through the API (from a loopback address of its
 * own: sign-ups are limited per address) and saves the rule; then the same headlines. It prints what a
 * client sees: admitted, streamed, position.
 */
async function outside(): Promise<void> {
  const bench = 'news-to-order-outside';
  const server = await startBundle({ NEWS_SOURCES: 'webhook', INGEST_TOKEN: INGEST, LOG_LEVEL: 'warn' });
  const { base } = server;
  const client = clients();
  try {
    for (let tries = 0; ; tries++) {
      const up = await request(base, 'GET', '/api/health').catch(() => null);
      if (up !== null && up.status < 500) break;
      if (tries > 600) throw new Error('the server did not answer');
      await sleep(100);
    }
    const userTokens = await signUpTraders(base, USERS);
    await client.ask({ cmd: 'connect', base, tokens: userTokens });
    await sleep(GAP_MS);
    const stages: Record<string, number[]> = { admitted: [], streamed: [], frame_sent: [], position: [] };
    const sent: { id: string; at: number; symbol: string }[] = [];
    for (let n = 0; n < HEADLINES; n++) {
      const { content, symbol } = positiveHeadline(n);
      const posted = await client.ask<Posted>({
        cmd: 'post',
        base,
        token: INGEST,
        content,
        externalId: `o${n}`,
      });
      if (posted.status !== 202 || posted.result?.id == null) {
        throw new Error(`headline ${n} not created: ${posted.status} ${JSON.stringify(posted.result)}`);
      }
      stages.admitted?.push(posted.answered - posted.at);
      sent.push({ id: posted.result.id, at: posted.at, symbol });
      await sleep(Math.max(0, posted.at + GAP_MS - now()));
    }
    await sleep(1000);
    const seen = await client.ask<{ completed: [string, number][]; held: Held[] }>({
      cmd: 'stats',
    });
    const streamed = new Map(seen.completed);
    for (const s of sent) {
      const arrived = streamed.get(s.id);
      if (arrived !== undefined) stages.streamed?.push(arrived - s.at);
      for (const [, symbol, at, sentAt] of seen.held) {
        if (symbol !== s.symbol) continue;
        stages.frame_sent?.push(sentAt - s.at);
        stages.position?.push(at - s.at);
      }
    }
    report(bench, 'users', USERS, 'users');
    report(bench, 'headlines', HEADLINES, 'headlines');
    report(bench, 'position_frames', stages.position?.length ?? 0, 'frames');
    report(bench, 'position_frames_expected', HEADLINES * USERS, 'frames');
    for (const [stage, values] of Object.entries(stages)) {
      values.sort((a, b) => a - b);
      report(bench, `${stage}_p50`, sortedPercentile(values, 0.5), 'ms');
      report(bench, `${stage}_p99`, sortedPercentile(values, 0.99), 'ms');
    }
    reportByHeadline(bench, sent, seen.held);
    report(bench, 'load_average_after', loadAverage(), 'load');
  } finally {
    client.exit();
    await server.stop();
  }
}

const measure = MODE === 'load' ? load : scenario;
// The server in this process runs its database as `npm start` does.
compileWasmOptimised();
if (MODE === 'outside') {
  await outside();
  process.exit(0);
}
for (const target of PG_URL === '' ? ['pglite'] : ['pglite', 'postgres']) {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'sc-bench-n2o-'));
  const schema = `bench_n2o_${process.pid}`;
  const database =
    target === 'postgres'
      ? await openDatabase({ kind: 'postgres', url: PG_URL, schema, poolSize: 10 })
      : await openDatabase({ kind: 'pglite', dataDir: pgliteDir(dataDir) });
  try {
    await measure(target, database, dataDir);
  } finally {
    if (target === 'postgres')
      await database.db.execute(sql.raw(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
    await database.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
