import { fork, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { PGlite } from '@electric-sql/pglite';
import type { FastifyInstance } from 'fastify';
import { SYMBOLS } from '../src/contracts/symbols';
import { buildApp } from '../server/app';
import { loadConfig } from '../server/config';
import { openDatabase, pgliteDir, type Database } from '../server/db/client';
import { compileWasmOptimised } from '../server/warm/wasm-tiering';
import { riskSettings, ruleDecisions, rules, users } from '../server/db/schema';
import { createAccessTokens } from '../server/plugins/auth-guard';
import { createSecrets } from '../server/plugins/secrets';
import { OFFLINE_ENV } from '../tests/helpers/process';
import { report } from './lib/report';
import { busyMs, timeline, traceStatements, type TracedStatement } from './lib/statement-trace';
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
const INGEST = 'bench-ingest-token-0123456789abcdef';
const PG_URL = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || '';
/**
 * `BENCH_TRACE=1`: on stderr, each headline's wait for its last position and the embedded database's
 * share of it, and the statements of the fastest and slowest headlines.
 */
const TRACE = process.env.BENCH_TRACE === '1';

/** [user index, symbol, when a snapshot holding a position on it arrived, when the server sent it]. */
type Held = [number, string, number, number];

/** Positive headlines, one coin each (the local analyzer tags the coin and reads them as positive). */
const COINS = SYMBOLS.filter((s) => !s.symbol.startsWith('1000')).slice(0, 60);
const POSITIVE = [
  (t: string, n: string) => `${n} (${t}) ETF approved by the SEC, first-day inflows hit a record`,
  (t: string, n: string) => `BlackRock buys a large stake in ${t} as ${n} rallies to a new all-time high`,
  (t: string, n: string) => `Visa partners with the ${n} foundation to settle payments in ${t}`,
  (t: string, n: string) => `Coinbase and Robinhood list ${n} (${t}); trading volume surges fivefold`,
  (t: string, n: string) => `${n} treasury announces a ${t} buyback after record quarterly revenue`,
];
function positiveHeadline(n: number): { content: string; symbol: string } {
  const coin = COINS[n % COINS.length] ?? COINS[0];
  const tpl = POSITIVE[n % POSITIVE.length] ?? POSITIVE[0];
  if (coin === undefined || tpl === undefined) throw new Error('no symbols');
  const round = Math.floor(n / COINS.length);
  return { content: `${tpl(coin.ticker, coin.name)}${round > 0 ? ` (${round})` : ''}`, symbol: coin.symbol };
}

const loadAverage = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);

interface Started {
  app: FastifyInstance;
  api: FastifyInstance;
  base: string;
  /** When each signal's completion was announced on the bus (ms, epoch). */
  completedAt: Map<string, number>;
  secretsKey: string;
}

async function startServer(database: Database, dataDir: string): Promise<Started> {
  const secretsKey = randomBytes(32).toString('hex');
  const config = loadConfig(
    {
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      MARKET_SOURCE: 'sim',
      NEWS_SOURCES: 'webhook',
      INGEST_TOKEN: INGEST,
      SECRETS_KEY: secretsKey,
    },
    'bench',
  );
  let api: FastifyInstance | undefined;
  const app = await buildApp(config, {
    database,
    logStream: { write: () => undefined },
    onApi: (scope) => (api = scope),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  if (api === undefined) throw new Error('no /api scope');
  const completedAt = new Map<string, number>();
  app.bus.subscribe('signal.published', ({ signal }) => {
    if (signal.analysis.status === 'completed' && !completedAt.has(signal.id)) {
      completedAt.set(signal.id, now());
    }
  });
  const { port } = app.server.address() as AddressInfo;
  return { app, api, base: `http://127.0.0.1:${port}`, completedAt, secretsKey };
}

/** Users straight into the database, and a bearer token for each (as a sign-in would give). */
async function seedUsers(database: Database, count: number, prefix: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 500) {
    const rows = await database.db
      .insert(users)
      .values(
        Array.from({ length: Math.min(500, count - i) }, (_, j) => ({
          email: `${prefix}${i + j}@example.com`,
          username: `${prefix}${i + j}`,
        })),
      )
      .returning({ id: users.id });
    ids.push(...rows.map((r) => r.id));
  }
  // Limits that let every match trade: the figure is the order path, not the skips.
  for (let i = 0; i < ids.length; i += 500) {
    await database.db.insert(riskSettings).values(
      ids.slice(i, i + 500).map((userId) => ({
        userId,
        maxOrderUsd: '1000000',
        dailyBudgetUsd: '100000000',
        maxPositions: 500,
        cooldownMinutes: 0,
        maxAgeSeconds: 600,
      })),
    );
  }
  return ids;
}

function tokens(secretsKey: string) {
  const signer = createAccessTokens(createSecrets(Buffer.from(secretsKey, 'hex')).deriveKey('jwt'));
  return (userId: string) => signer.sign({ userId, role: 'user', familyId: randomUUID() });
}

function postDirect(base: string, content: string, externalId: string): Promise<Response> {
  return fetch(`${base}/api/signals/ingest`, {
    method: 'POST',
    headers: { authorization: `Bearer ${INGEST}`, 'content-type': 'application/json' },
    body: JSON.stringify({ content, source_name: 'Bench Wire', external_id: externalId }),
  });
}

/** The client process (bench/lib/news-clients.mjs) and a way to ask it one thing at a time. */
function clients() {
  const child = fork(path.join(import.meta.dirname, 'lib/news-clients.mjs'), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ask = <T>(msg: Record<string, unknown>): Promise<T> =>
    new Promise((resolve, reject) => {
      child.once('message', (m: { cmd: string; detail?: string }) =>
        m.cmd === 'error' ? reject(new Error(m.detail)) : resolve(m as T),
      );
      child.send(msg);
    });
  return { ask, exit: () => child.connected && child.send({ cmd: 'exit' }) };
}

interface Posted {
  at: number;
  answered: number;
  status: number;
  result: { result: string; id: string | null } | null;
}

/**
 * Each rule's past: HISTORY_DAYS days of HISTORY_PER_DAY decisions before today (fired, some skipped), as
 * an active trader's ledger holds. What reads a user's recent decisions must not walk all of them.
 */
async function seedHistory(database: Database): Promise<void> {
  const owned = await database.db
    .select({ id: rules.id, userId: rules.userId, name: rules.name })
    .from(rules);
  const day = 86_400_000;
  const start = Date.now() - (HISTORY_DAYS + 1) * day;
  const rows: (typeof ruleDecisions.$inferInsert)[] = [];
  for (const rule of owned) {
    for (let k = 0; k < HISTORY_DAYS * HISTORY_PER_DAY; k++) {
      const fired = k % 4 !== 0;
      rows.push({
        userId: rule.userId,
        ruleId: rule.id,
        ruleName: rule.name,
        ruleVersion: 1,
        signalId: -(k + 1),
        asset: 'BTC',
        symbol: 'BTCUSDT',
        side: 'long',
        amountUsd: '200',
        outcome: fired ? 'fired' : 'skipped',
        reason: fired ? null : 'cooldown',
        notional: fired ? '200.12' : null,
        price: '100000',
        quantity: fired ? '0.002' : null,
        decidedAt: new Date(start + (k * day) / HISTORY_PER_DAY),
      });
    }
  }
  for (let i = 0; i < rows.length; i += 2000) {
    await database.db.insert(ruleDecisions).values(rows.slice(i, i + 2000));
  }
}

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
    await seedHistory(database);
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

/**
 * A headline's thirty frames rise and fall together, so a run's p99 is its slowest headline, and that is
 * most often the first after the start (code and the database's caches cold). Printed apart: the first
 * headline's slowest frame, the p99 of the headlines after it, and the median over headlines of each
 * one's slowest frame (what a trader waits for the last of the thirty positions).
 */
function reportByHeadline(
  bench: string,
  sent: readonly { at: number; symbol: string }[],
  held: readonly Held[],
): void {
  const slowest: number[] = [];
  const later: number[] = [];
  sent.forEach((s, n) => {
    const frames = held.filter(([, symbol]) => symbol === s.symbol).map(([, , at]) => at - s.at);
    if (frames.length === 0) return;
    slowest.push(Math.max(...frames));
    if (n > 0) later.push(...frames);
  });
  later.sort((a, b) => a - b);
  report(bench, 'position_first_headline_max', slowest[0] ?? NaN, 'ms');
  report(bench, 'position_later_headlines_p99', sortedPercentile(later, 0.99), 'ms');
  report(
    bench,
    'position_headline_max_p50',
    sortedPercentile(
      [...slowest].sort((a, b) => a - b),
      0.5,
    ),
    'ms',
  );
}

/**
 * For every headline, how long until its last position frame and how much of that the database was
 * running statements; then the statements of the headlines whose last frame came first and last: when
 * each was asked for, began and ended. The database's idle time between them is the server's own work
 * (and the sockets').
 */
function traceHeadlines(
  statements: readonly TracedStatement[],
  sent: readonly { at: number; symbol: string }[],
  held: readonly Held[],
): void {
  const byHeadline = sent.map((s, n) => {
    const frames = held.filter(([, symbol]) => symbol === s.symbol).map(([, , at]) => at);
    return { n, at: s.at, until: frames.length === 0 ? s.at : Math.max(...frames) };
  });
  console.error('headline  last frame  database busy (ms after the post)');
  for (const h of byHeadline) {
    const busy = busyMs(statements, h.at, h.until);
    console.error(
      `${String(h.n).padStart(8)} ${(h.until - h.at).toFixed(1).padStart(11)} ${busy.toFixed(1).padStart(14)}`,
    );
  }
  const ranked = [...byHeadline].sort((a, b) => a.until - a.at - (b.until - b.at));
  for (const h of [ranked[0], ranked.at(-1)]) {
    if (h === undefined) continue;
    console.error(`headline ${h.n}: last position frame ${(h.until - h.at).toFixed(1)} ms after the post`);
    console.error('   asked  began  ended');
    for (const line of timeline(statements, h.at, h.until)) console.error(`  ${line}`);
  }
}

/** 10,000 rules over 1,000 users, narrow enough (5-point impact bands) that a headline matches a few. */
async function load(target: string, database: Database, dataDir: string): Promise<void> {
  const bench = `news-to-order-load-${target}`;
  let seed = 42;
  const rand = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const userIds = await seedUsers(database, LOAD_USERS, 'n2l');
  const tickers = SYMBOLS.map((s) => s.ticker);
  const sentiments = ['positive', 'negative', 'neutral'] as const;
  const seeded = Array.from({ length: LOAD_RULES }, (_, i) => {
    const low = Math.floor(rand() * 95);
    return {
      userId: userIds[i % userIds.length] as string,
      name: `bench ${i}`,
      asset: tickers[Math.floor(rand() * tickers.length)] ?? 'BTC',
      sentiment: sentiments[Math.floor(rand() * 3)] ?? 'positive',
      minImpact: low,
      maxImpact: low + 5,
      side: rand() < 0.5 ? ('long' as const) : ('short' as const),
      amountUsd: '120',
      createdAt: new Date(Date.now() - LOAD_RULES + i),
    };
  });
  for (let i = 0; i < seeded.length; i += 1000)
    await database.db.insert(rules).values(seeded.slice(i, i + 1000));
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

/** A request from a loopback address of its own (sign-ups are limited per address, as from outside). */
function request(
  base: string,
  method: string,
  url: string,
  opts: { body?: Record<string, unknown>; token?: string; form?: boolean; from?: string } = {},
): Promise<{ status: number; body: string }> {
  const data =
    opts.body === undefined
      ? undefined
      : opts.form === true
        ? new URLSearchParams(opts.body as Record<string, string>).toString()
        : JSON.stringify(opts.body);
  const headers: Record<string, string> = {};
  if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
  if (data !== undefined) {
    headers['content-type'] = opts.form === true ? 'application/x-www-form-urlencoded' : 'application/json';
  }
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${base}${url}`,
      { method, headers, ...(opts.from === undefined ? {} : { localAddress: opts.from }) },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    if (data !== undefined) req.write(data);
    req.end();
  });
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
  const main = path.join(import.meta.dirname, '../dist/server/main.mjs');
  if (!existsSync(main)) throw new Error('run `npm run build` first');
  const dataDir = await mkdtemp(path.join(tmpdir(), 'sc-bench-n2o-out-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = spawn(process.execPath, [main], {
    env: {
      ...process.env,
      // Offline stand-ins only (the simulated market above all): a bench never reaches past loopback.
      ...OFFLINE_ENV,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      NEWS_SOURCES: 'webhook',
      INGEST_TOKEN: INGEST,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const client = clients();
  try {
    for (let tries = 0; ; tries++) {
      const up = await request(base, 'GET', '/api/health').catch(() => null);
      if (up !== null && up.status < 500) break;
      if (tries > 600) throw new Error('the server did not answer');
      await sleep(100);
    }
    const userTokens: string[] = [];
    for (let i = 0; i < USERS; i++) {
      const from = `127.0.0.${2 + i}`;
      const user = { username: `outside${i}`, password: 'outside bench pass 1' };
      const signup = await request(base, 'POST', '/api/auth/signup', {
        body: { ...user, email: `outside${i}@example.com` },
        from,
      });
      if (signup.status !== 201) throw new Error(`sign-up ${signup.status} ${signup.body}`);
      const login = await request(base, 'POST', '/api/auth/token', {
        body: { ...user, remember_me: 'false' },
        form: true,
        from,
      });
      const token = (JSON.parse(login.body) as { access_token?: string }).access_token;
      if (token === undefined) throw new Error(`login ${login.status} ${login.body}`);
      const rule = await request(base, 'POST', '/api/rules/', {
        token,
        body: {
          ruleName: 'any positive',
          conditions: { sentiment: 'positive', min_impact: 0, max_impact: 100 },
          action: { type: 'trade', side: 'long', amount_usd: 200 },
        },
      });
      if (rule.status !== 201) throw new Error(`rule ${rule.status} ${rule.body}`);
      // As in process: limits that let every match trade (a new user may hold five positions).
      const risk = await request(base, 'PUT', '/api/rules/risk', {
        token,
        body: { max_positions: 200, daily_budget_usd: 100_000, cooldown_minutes: 0 },
      });
      if (risk.status !== 200) throw new Error(`risk ${risk.status} ${risk.body}`);
      userTokens.push(token);
    }
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
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** A port nothing listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
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
