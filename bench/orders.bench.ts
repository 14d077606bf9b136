import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import Decimal from 'decimal.js';
import { applyEvent, emptyAccount, type PaperAccountState } from '../server/modules/trading/paper/account';
import { planMarketOrder } from '../server/modules/trading/paper/orders';
import { openDatabase, pgliteDir, type DatabaseTarget } from '../server/db/client';
import { users } from '../server/db/schema';
import { createAccessTokens } from '../server/plugins/auth-guard';
import { createSecrets } from '../server/plugins/secrets';
import { freePort, startServerProcess, waitForHealth } from '../tests/helpers/process';
import { onEachDatabase } from './lib/postgres';
import { report } from './lib/report';

/**
 * Paper exchange throughput: 50 users placing market orders over HTTP at a steady 200 orders/s
 * (latency p50/p99), then as fast as they can (orders/s), and the engine alone in this process. On
 * PGlite; with `BENCH_DATABASE_URL=postgres://…` the same load runs again on a fresh PostgreSQL database
 * (dropped afterwards) and prints as `orders-postgres`.
 */
const USERS = 50;
const RATE = 200;
const STEADY_S = Number(process.env.BENCH_ORDERS_S ?? 10);
const BURST_S = 5;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;

async function post(base: string, url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(base + url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/**
 * Seeds the users straight into the database (applying the migrations first) and mints their access
 * tokens with the server's key (set through SECRETS_KEY), so that the sign-in rate limits do not shape
 * the benchmark.
 */
async function seedUsers(target: DatabaseTarget, secretsKey: string): Promise<string[]> {
  const database = await openDatabase(target);
  const rows = await database.db
    .insert(users)
    .values(
      Array.from({ length: USERS }, (_, i) => ({ email: `bench${i}@example.com`, username: `bench${i}` })),
    )
    .returning({ id: users.id });
  await database.close();
  const tokens = createAccessTokens(createSecrets(Buffer.from(secretsKey, 'hex')).deriveKey('jwt'));
  return Promise.all(rows.map((r) => tokens.sign({ userId: r.id, role: 'user' })));
}

/** One order for user `u`, alternating sides so that margin never runs out. */
function orderFor(base: string, token: string, n: number) {
  const started = performance.now();
  return post(
    base,
    '/api/orders',
    {
      symbol: n % 3 === 0 ? 'SOL/USDT' : 'ETH/USDT',
      side: n % 2 === 0 ? 'long' : 'short',
      type: 'market',
      amount: 100,
    },
    { authorization: `Bearer ${token}`, 'idempotency-key': randomUUID() },
  ).then(
    (r) => ({ ms: performance.now() - started, ok: r.status === 200, status: r.status }),
    // Refused or timed out (a starved machine): counted as failed under status 0, the run goes on.
    () => ({ ms: performance.now() - started, ok: false, status: 0 }),
  );
}

function engineAlone(): number {
  let state: PaperAccountState = applyEvent(emptyAccount(), {
    type: 'deposit',
    amount: '10000000',
    reason: 'initial',
  }).state;
  const conditions = { markPrice: new Decimal(3000), slippageBps: 2, takerFeeRate: new Decimal('0.0005') };
  const n = 20_000;
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const fill = planMarketOrder(
      state,
      {
        orderId: `o${i}`,
        clientOrderId: `c${i}`,
        symbol: 'ETHUSDT',
        side: i % 2 === 0 ? 'BUY' : 'SELL',
        size: { kind: 'quote', amount: new Decimal(100 + (i % 7)) },
        reduceOnly: false,
      },
      conditions,
    );
    state = applyEvent(state, fill).state;
  }
  return n / ((performance.now() - started) / 1000);
}

/** The whole HTTP load on one server; `databaseUrl` unset is PGlite in the server's DATA_DIR. */
async function measure(bench: string, databaseUrl?: string): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'sc-bench-orders-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const secretsKey = randomBytes(32).toString('hex');
  const tokens = await seedUsers(
    databaseUrl === undefined
      ? { kind: 'pglite', dataDir: pgliteDir(dataDir) }
      : { kind: 'postgres', url: databaseUrl, poolSize: 2 },
    secretsKey,
  );
  const server = startServerProcess({
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    SECRETS_KEY: secretsKey,
    ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
  });
  try {
    await waitForHealth(base);
    // Warm-up: one order each.
    await Promise.all(tokens.map((t, i) => orderFor(base, t, i)));

    // Steady rate: RATE orders/s spread over the users, for STEADY_S seconds.
    const latencies: number[] = [];
    let failures = 0;
    const statuses = new Map<number, number>();
    const pending: Promise<void>[] = [];
    const total = RATE * STEADY_S;
    const startedAt = performance.now();
    for (let n = 0; n < total; n++) {
      const due = startedAt + (n * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const token = tokens[n % USERS] ?? '';
      pending.push(
        orderFor(base, token, n).then((r) => {
          latencies.push(r.ms);
          if (!r.ok) {
            failures += 1;
            statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
          }
        }),
      );
    }
    await Promise.all(pending);
    const achieved = total / ((performance.now() - startedAt) / 1000);
    latencies.sort((a, b) => a - b);
    report(bench, 'http_steady_rate', achieved, 'orders/s');
    report(bench, 'http_p50_at_200_per_s', percentile(latencies, 0.5), 'ms');
    report(bench, 'http_p99_at_200_per_s', percentile(latencies, 0.99), 'ms');
    report(bench, 'http_failed', failures, 'orders');
    if (failures > 0) process.stderr.write(`failed orders by status: ${JSON.stringify([...statuses])}\n`);

    // As fast as 50 users can go (each waits for its previous answer).
    let done = 0;
    const burstEnd = performance.now() + BURST_S * 1000;
    await Promise.all(
      tokens.map(async (token, u) => {
        for (let n = u; performance.now() < burstEnd; n += USERS) {
          const r = await orderFor(base, token, n);
          if (r.ok) done += 1;
          else if (r.status === 429) await new Promise((res) => setTimeout(res, 50));
        }
      }),
    );
    report(bench, 'http_max_throughput', done / BURST_S, 'orders/s');
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await onEachDatabase('orders', (target, url) =>
  measure(target === 'pglite' ? 'orders' : 'orders-postgres', url),
);
report('orders', 'engine_in_process', engineAlone(), 'orders/s');
