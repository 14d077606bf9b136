import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openDatabase, pgliteDir } from '../server/db/client';
import { stepUps, users } from '../server/db/schema';
import { createAccessTokens } from '../server/plugins/auth-guard';
import { createSecrets } from '../server/plugins/secrets';
import { startSignedDouble } from '../tests/fixtures/binance-signed-double';
import { freePort, startServerProcess, waitForHealth } from '../tests/helpers/process';
import { report } from './lib/report';

/**
 * How long a live position is unprotected: `POST /api/orders` with a stop-loss and a take-profit on an
 * account that uses a saved key, against the local Binance double. Measured two ways for each order:
 * from the entry's fill on the double to its stop resting there (the double's own clock: what a
 * crash at the worst moment would leave bare), and the server's own `unprotected_ms` in the answer
 * (from the fill known to both legs confirmed). The order's round trip with and without protection
 * says what the legs add to the answer. Each protected order is closed again before the next.
 */
const ORDERS = Number(process.env.BENCH_PROTECTION_ORDERS ?? 60);
const KEY = { apiKey: 'BenchGuardKey0123456789abcdef', secret: 'bench-guard-secret-0123456789' };

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;

async function call(base: string, method: string, url: string, token: string, body?: unknown, key?: string) {
  const res = await fetch(base + url, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(key === undefined ? {} : { 'idempotency-key': key }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const double = await startSignedDouble();
double.keys.set(KEY.apiKey, { ...KEY, ipRestrict: true });
const dataDir = await mkdtemp(path.join(tmpdir(), 'sc-bench-guard-'));
const secretsKey = randomBytes(32).toString('hex');
const database = await openDatabase({ kind: 'pglite', dataDir: pgliteDir(dataDir) });
const [user] = await database.db
  .insert(users)
  .values({ email: 'guard-bench@example.com', username: 'guardbench' })
  .returning({ id: users.id });
if (!user) throw new Error('no user');
const familyId = randomUUID();
await database.db
  .insert(stepUps)
  .values({ familyId, userId: user.id, confirmedUntil: new Date(Date.now() + 5 * 60_000) });
await database.close();
const token = await createAccessTokens(createSecrets(Buffer.from(secretsKey, 'hex')).deriveKey('jwt')).sign({
  userId: user.id,
  role: 'user',
  familyId,
});
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const server = startServerProcess({
  PORT: String(port),
  DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  SECRETS_KEY: secretsKey,
  MARKET_SOURCE: 'sim',
  BINANCE_FAPI_URL: double.url,
  BINANCE_API_URL: double.url,
});
try {
  await waitForHealth(base);
  const saved = await call(base, 'POST', '/api/exchanges/', token, {
    exchangeName: 'binance',
    apiKey: KEY.apiKey,
    secretKey: KEY.secret,
  });
  if (saved.status !== 201) throw new Error(`key not saved: ${JSON.stringify(saved.json)}`);
  const chosen = await call(base, 'PUT', '/api/account', token, { account: saved.json.id });
  if (chosen.status !== 200) throw new Error(`account not chosen: ${JSON.stringify(chosen.json)}`);

  const entry = { symbol: 'BTC/USDT', side: 'long', type: 'market', amount: 500 };
  const guarded = { ...entry, protection: { stop_loss_pct: 2, take_profit_pct: 4 } };
  const close = () => call(base, 'POST', '/api/close_position', token, { symbol: 'BTC/USDT' });
  // Warm-up: caches, connections, JIT.
  for (let n = 0; n < 10; n++) {
    await call(base, 'POST', '/api/orders', token, guarded, randomUUID());
    await close();
  }

  const fillToRest: number[] = [];
  const serverGap: number[] = [];
  const withLegs: number[] = [];
  const without: number[] = [];
  let unprotected = 0;
  for (let n = 0; n < ORDERS; n++) {
    const ordersBefore = double.orders.length;
    const legsBefore = double.algoOrders.length;
    let started = performance.now();
    const res = await call(base, 'POST', '/api/orders', token, guarded, randomUUID());
    withLegs.push(performance.now() - started);
    const fill = double.orders[ordersBefore];
    const stop = double.algoOrders.slice(legsBefore).find((o) => o.type === 'STOP_MARKET');
    const receipt = res.json.protection as { unprotected_ms: number | null } | null;
    if (res.status !== 200 || fill === undefined || stop === undefined || receipt?.unprotected_ms == null) {
      unprotected += 1;
    } else {
      fillToRest.push(stop.createTime - fill.time);
      serverGap.push(receipt.unprotected_ms);
    }
    await close();
    started = performance.now();
    await call(base, 'POST', '/api/orders', token, entry, randomUUID());
    without.push(performance.now() - started);
    await close();
  }
  for (const list of [fillToRest, serverGap, withLegs, without]) list.sort((a, b) => a - b);
  report('protection', 'fill_to_stop_resting_p50', percentile(fillToRest, 0.5), 'ms');
  report('protection', 'fill_to_stop_resting_p99', percentile(fillToRest, 0.99), 'ms');
  report('protection', 'unprotected_ms_answered_p50', percentile(serverGap, 0.5), 'ms');
  report('protection', 'unprotected_ms_answered_p99', percentile(serverGap, 0.99), 'ms');
  report('protection', 'order_with_legs_round_trip_p50', percentile(withLegs, 0.5), 'ms');
  report('protection', 'order_with_legs_round_trip_p99', percentile(withLegs, 0.99), 'ms');
  report('protection', 'order_without_legs_round_trip_p50', percentile(without, 0.5), 'ms');
  report('protection', 'order_without_legs_round_trip_p99', percentile(without, 0.99), 'ms');
  report('protection', 'orders_left_unprotected', unprotected, 'orders');
} finally {
  await server.stop();
  await double.close();
  await rm(dataDir, { recursive: true, force: true });
}
