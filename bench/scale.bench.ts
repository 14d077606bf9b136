import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freePort, startServerProcess, waitForHealth, type ServerProcess } from '../tests/helpers/process';
import { freshDatabase, postgresProblem, query } from './lib/postgres';
import { report } from './lib/report';
import {
  askStats,
  countOf,
  merged,
  now,
  paced,
  percentile,
  resetStats,
  sleep,
  sortedPercentile,
  startClients,
  story,
  treeUsage,
  waitConnected,
  type ClientStats,
} from './lib/sse-load';

/**
 * The signal fan-out across processes: CLIENTS SSE clients split over two api nodes (plus one worker)
 * on PostgreSQL and Redis, while RATE signals/s go in through the webhooks of both api nodes for
 * SECONDS; then the same load on one node alone (ROLE=all on the same PostgreSQL and Redis, every
 * client on it). Prints, for each: completed-event delivery p50/p99 (from the send stamp in the
 * content), the share of the expected completed events that arrived, clients dropped, and CPU and RSS
 * of every node. Nothing is skipped when the machine cannot keep up: the figures say how far it got.
 */
const env = process.env;
const CLIENTS = Number(env.BENCH_CLIENTS ?? 5000);
const RATE = Number(env.BENCH_RATE ?? 200);
const SECONDS = Number(env.BENCH_SECONDS ?? 20);
const PG_URL = env.BENCH_DATABASE_URL ?? env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = env.BENCH_REDIS_URL ?? env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Client processes per scenario; with two api nodes, one per node. */
const CLIENT_PROCESSES = 2;
/** How long the clients get to open their streams; the run goes on with those that did. */
const CONNECT_MS = 90_000;
/** After the last send, how long arrivals are waited for (stopping early once they stop coming). */
const DRAIN_MS = 10_000;
const TOKEN = 'bench-scale-ingest-token';
const BENCH = 'scale';
const tag = randomBytes(4).toString('hex');

/** What was started, undone in reverse order: at the end, on failure, on a signal or on the time guard. */
const undo: (() => Promise<unknown>)[] = [];
async function cleanup(): Promise<void> {
  for (let step = undo.pop(); step !== undefined; step = undo.pop()) await step().catch(() => undefined);
}
// Bounded: whatever happens, the run ends (two scenarios of setup, load and drain, with room to spare).
const guard = setTimeout(
  () => {
    process.stderr.write('scale bench: timed out\n');
    void cleanup().finally(() => process.exit(1));
  },
  2 * (CONNECT_MS + SECONDS * 1000 + DRAIN_MS + 120_000),
);
guard.unref();
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void cleanup().finally(() => process.exit(130)));

interface Node {
  name: string;
  base: string;
  server: ServerProcess;
}

async function startNode(name: string, nodeEnv: Record<string, string>): Promise<Node> {
  const dataDir = await mkdtemp(path.join(tmpdir(), `sc-bench-scale-${name}-`));
  undo.push(() => rm(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  const server = startServerProcess({ ...nodeEnv, PORT: String(port), DATA_DIR: dataDir });
  // A node that does not shut down in time is killed: the run must end.
  undo.push(() => Promise.race([server.stop(), sleep(15_000).then(() => server.stop('SIGKILL'))]));
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(base, 120_000);
  } catch (err) {
    process.stderr.write(`${name} did not start:\n${server.output()}\n`);
    throw err;
  }
  return { name, base, server };
}

/** A database and a Redis prefix of the scenario's own, and the nodes on them (workers first: migrations). */
async function startScenario(
  label: string,
  roles: [string, 'all' | 'api' | 'worker'][],
): Promise<{ nodes: Node[]; databaseUrl: string }> {
  const database = await freshDatabase(PG_URL, `bench_scale_${label}_${tag}`);
  undo.push(() => database.drop());
  const nodeEnv = {
    DATABASE_URL: database.url,
    SECRETS_KEY: randomBytes(32).toString('hex'),
    REDIS_URL,
    REDIS_PREFIX: `bench-scale-${label}-${tag}:`,
    NEWS_SOURCES: 'webhook',
    INGEST_TOKEN: TOKEN,
    LOG_LEVEL: 'warn',
  };
  const nodes: Node[] = [];
  for (const [name, role] of roles.filter(([, r]) => r === 'worker'))
    nodes.push(await startNode(name, { ...nodeEnv, ROLE: role }));
  nodes.push(
    ...(await Promise.all(
      roles
        .filter(([, r]) => r !== 'worker')
        .map(([name, role]) => startNode(name, { ...nodeEnv, ROLE: role })),
    )),
  );
  return { nodes, databaseUrl: database.url };
}

/** Completed events counted so far; waits while they still come, up to DRAIN_MS. */
async function drain(workers: ChildProcess[]): Promise<(ClientStats | null)[]> {
  const deadline = Date.now() + DRAIN_MS;
  let last = -1;
  for (;;) {
    const stats = await askStats(workers);
    const completed = countOf(merged(stats).map((s) => s.completed));
    if (completed === last || Date.now() > deadline) return stats;
    last = completed;
    await sleep(1000);
  }
}

async function run(label: string, nodes: Node[], databaseUrl: string): Promise<void> {
  const apis = nodes.filter((n) => n.name !== 'worker');
  const perProcess = Math.ceil(CLIENTS / CLIENT_PROCESSES);
  const workers = Array.from({ length: CLIENT_PROCESSES }, (_, i) =>
    startClients(`${apis[i % apis.length]?.base}/api/signals/stream`, perProcess),
  );
  const stopClients = async () => {
    for (const w of workers) if (w.exitCode === null) w.kill('SIGKILL');
  };
  undo.push(stopClients);
  const connected = await waitConnected(workers, perProcess * CLIENT_PROCESSES, CONNECT_MS);

  let next = 0;
  const ingester = (phase: string) => (i: number, signal: AbortSignal) => {
    const api = apis[i % apis.length];
    const n = next++;
    return fetch(`${api?.base}/api/signals/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        content: story(n, phase === 'run'),
        source_name: 'Bench Wire',
        external_id: `${phase}-${n}`,
      }),
      signal,
    });
  };
  // Unstamped: a warm-up signal still queued when the run starts is not counted in it.
  await paced(Math.min(RATE, 50), 1, ingester('warm-up'));
  await drain(workers);
  resetStats(workers);

  const before = nodes.map((n) => treeUsage(n.server.child.pid ?? 0));
  const loadBefore = workers.reduce((c, w) => c + treeUsage(w.pid ?? 0).cpu, 0);
  const startedAt = now();
  const sent = await paced(RATE, SECONDS, ingester('run'));
  const stats = merged(await drain(workers));
  const elapsed = (now() - startedAt) / 1000;
  const after = nodes.map((n) => treeUsage(n.server.child.pid ?? 0));
  const loadAfter = workers.reduce((c, w) => c + treeUsage(w.pid ?? 0).cpu, 0);
  await stopClients();
  // What the servers made of the sends by the end of the drain (a send that timed out may be among them).
  const [stored] = await query<{ stored: number; completed: number }>(
    databaseUrl,
    `SELECT count(*)::int AS stored, (count(*) FILTER (WHERE status = 'completed'))::int AS completed
       FROM signals WHERE external_id LIKE 'run-%'`,
  );

  const completed = stats.map((s) => s.completed);
  const completedEvents = countOf(completed);
  const m = (metric: string) => `${label}_${metric}`;
  report(BENCH, m('nodes'), nodes.length, 'processes');
  report(BENCH, m('clients_connected'), connected, 'clients');
  report(BENCH, m('signals_sent'), sent.sent, 'signals');
  report(BENCH, m('signals_answered'), sent.ok, 'signals');
  report(BENCH, m('signals_timed_out'), sent.timedOut, 'signals');
  report(BENCH, m('signals_failed'), sent.failed, 'signals');
  report(BENCH, m('signals_stored'), stored?.stored ?? 0, 'signals');
  report(BENCH, m('signals_completed'), stored?.completed ?? 0, 'signals');
  report(BENCH, m('ingest_p50'), sortedPercentile(sent.latencies, 0.5), 'ms');
  report(BENCH, m('ingest_p99'), sortedPercentile(sent.latencies, 0.99), 'ms');
  report(BENCH, m('completed_events'), completedEvents, 'events');
  // Against every send: ingest and fan-out shortfalls together.
  report(BENCH, m('delivery_ratio'), completedEvents / Math.max(1, sent.sent * connected), 'ratio');
  // Against the signals the servers completed: the fan-out's share alone.
  report(
    BENCH,
    m('fanout_ratio'),
    completedEvents / Math.max(1, (stored?.completed ?? 0) * connected),
    'ratio',
  );
  report(BENCH, m('completed_per_s'), completedEvents / elapsed, 'events/s');
  report(BENCH, m('completed_p50'), percentile(completed, 0.5), 'ms');
  report(BENCH, m('completed_p99'), percentile(completed, 0.99), 'ms');
  report(
    BENCH,
    m('clients_dropped'),
    stats.reduce((n, s) => n + s.dropped, 0),
    'clients',
  );
  nodes.forEach((node, i) => {
    const cpu = ((after[i]?.cpu ?? 0) - (before[i]?.cpu ?? 0)) / elapsed;
    report(BENCH, m(`cpu_${node.name}`), cpu * 100, '% of one core');
    report(BENCH, m(`rss_${node.name}`), (after[i]?.rss ?? 0) / 1024 / 1024, 'MB');
  });
  report(BENCH, m('cpu_load_generator_clients'), ((loadAfter - loadBefore) / elapsed) * 100, '% of one core');
}

async function scenario(label: string, roles: [string, 'all' | 'api' | 'worker'][]): Promise<void> {
  const mark = undo.length;
  try {
    const { nodes, databaseUrl } = await startScenario(label, roles);
    await run(label, nodes, databaseUrl);
  } finally {
    while (undo.length > mark)
      await undo
        .pop()?.()
        .catch(() => undefined);
  }
}

async function redisProblem(): Promise<string | null> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 3000 });
  try {
    await redis.connect();
    await redis.ping();
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    redis.disconnect();
  }
}

const problem = (await postgresProblem(PG_URL)) ?? (await redisProblem());
if (problem !== null) {
  process.stderr.write(
    `scale bench needs PostgreSQL (BENCH_DATABASE_URL, ${PG_URL}) and Redis (BENCH_REDIS_URL, ${REDIS_URL}): ${problem}\n`,
  );
  process.exit(1);
}
report(BENCH, 'clients', CLIENTS, 'clients');
report(BENCH, 'rate', RATE, 'signals/s');
report(BENCH, 'seconds', SECONDS, 's');
try {
  await scenario('one_node', [['node', 'all']]);
  await scenario('two_api_nodes', [
    ['worker', 'worker'],
    ['api_a', 'api'],
    ['api_b', 'api'],
  ]);
} finally {
  await cleanup();
}
