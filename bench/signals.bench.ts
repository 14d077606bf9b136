import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../server/config';
import { createAnalyzer } from '../server/modules/analysis/analysis.service';
import { REPLAY_ITEMS, replayContent } from '../server/modules/news/sources/replay-data';
import { freePort, startServerProcess, waitForHealth } from '../tests/helpers/process';
import { report } from './lib/report';
import { now, percentile, sleep, story, treeUsage, type Hist } from './lib/sse-load';

/**
 * The signal pipeline under a news burst: CLIENTS server-sent-event clients on /api/signals/stream while
 * RATE signals/s go in through the webhook for SECONDS; prints ingest→client latency (p50/p99) of the
 * `analyzing` and the `completed` event, the server's CPU and RSS, the local analyzer's items/s on one
 * core, and the same fan-out by a bare node:http broadcaster in the same run as a ratio. Everything
 * runs on 127.0.0.1; clients live in WORKERS child processes.
 */
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 2000);
const RATE = Number(process.env.BENCH_RATE ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const BARE_SECONDS = Number(process.env.BENCH_BARE_SECONDS ?? 15);
const WORKERS = 2;
const TOKEN = 'bench-ingest-token';

interface WorkerStats {
  ready: number;
  events: number;
  dropped: number;
  analyzing: Hist;
  completed: Hist;
}

function startClients(url: string): ChildProcess[] {
  return Array.from({ length: WORKERS }, () =>
    fork(path.join(import.meta.dirname, 'lib/sse-clients.mjs'), [], {
      env: { URL: url, COUNT: String(Math.ceil(CLIENTS / WORKERS)) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
}

function ask(workers: ChildProcess[], cmd: 'stats' | 'reset'): Promise<WorkerStats[]> {
  return Promise.all(
    workers.map(
      (w) =>
        new Promise<WorkerStats>((resolve) => {
          if (cmd === 'reset') {
            w.send({ cmd });
            resolve({ ready: 0, events: 0, dropped: 0, analyzing: [], completed: [] });
            return;
          }
          w.once('message', (m) => resolve(m as WorkerStats));
          w.send({ cmd });
        }),
    ),
  );
}

async function allConnected(workers: ChildProcess[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const stats = await ask(workers, 'stats');
    if (stats.reduce((n, s) => n + s.ready, 0) >= CLIENTS) return;
    if (Date.now() > deadline) throw new Error('SSE clients did not all connect');
    await sleep(200);
  }
}

/** CPU seconds and RSS of a process and its children (tsx runs the server in a child). */
async function drive(seconds: number, post: (i: number) => Promise<Response>): Promise<number> {
  const started = now();
  const pending: Promise<unknown>[] = [];
  let failures = 0;
  for (let i = 0; i < RATE * seconds; i++) {
    const due = started + (i * 1000) / RATE;
    const wait = due - now();
    if (wait > 0) await sleep(wait);
    pending.push(
      post(i).then(async (r) => {
        await r.arrayBuffer();
        if (!r.ok) failures += 1;
      }),
    );
  }
  await Promise.all(pending);
  if (failures > 0) throw new Error(`${failures} ingest requests failed`);
  return RATE * seconds;
}

// 1. The analyzer on one core.
const analyzer = createAnalyzer(loadConfig({ ANALYZER: 'local', NODE_ENV: 'test', LOG_LEVEL: 'silent' }));
const inputs = REPLAY_ITEMS.map((e) => ({ content: replayContent(e), source_name: 'Blockwire News' }));
for (const input of inputs) await analyzer.analyze(input);
let analysed = 0;
const t0 = performance.now();
while (performance.now() - t0 < 2000) {
  for (const input of inputs) await analyzer.analyze(input);
  analysed += inputs.length;
}
report('signals', 'analyzer_items_per_s', analysed / ((performance.now() - t0) / 1000), 'items/s');

// 2. Our server.
const dataDir = await mkdtemp(path.join(tmpdir(), 'sc-bench-'));
const port = await freePort();
const server = startServerProcess({
  PORT: String(port),
  DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  NEWS_SOURCES: 'webhook',
  INGEST_TOKEN: TOKEN,
});
const base = `http://127.0.0.1:${port}`;
const barePort = await freePort();
const bare = spawn(process.execPath, [path.join(import.meta.dirname, 'lib/bare-sse-server.mjs')], {
  env: { PORT: String(barePort) },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let workers: ChildProcess[] = [];
try {
  await waitForHealth(base);
  await new Promise<void>((resolve) => bare.stdout?.once('data', () => resolve()));
  const serverPid = server.child.pid ?? 0;

  workers = startClients(`${base}/api/signals/stream`);
  await allConnected(workers);
  const ingest = (i: number) =>
    fetch(`${base}/api/signals/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: story(i), source_name: 'Bench Wire', external_id: `bench-${i}` }),
    });
  await drive(1, (i) => ingest(RATE * SECONDS + i)); // warm-up, with stories of its own
  await sleep(500);
  await ask(workers, 'reset');
  const before = treeUsage(serverPid);
  const startedAt = now();
  const sent = await drive(SECONDS, ingest);
  await sleep(1000);
  const elapsed = (now() - startedAt) / 1000;
  const after = treeUsage(serverPid);
  const ours = await ask(workers, 'stats');
  const ourEvents = ours.reduce((n, s) => n + s.events, 0);
  const ourDropped = ours.reduce((n, s) => n + s.dropped, 0);
  for (const w of workers) w.send({ cmd: 'exit' });

  report('signals', 'clients', CLIENTS, 'clients');
  report('signals', 'signals_ingested', sent, 'signals');
  report('signals', 'events_delivered', ourEvents, 'events');
  report('signals', 'delivery_ratio', ourEvents / (sent * 2 * CLIENTS), 'ratio');
  report('signals', 'clients_dropped', ourDropped, 'clients');
  const count = (h: Hist[]) => h.flat().reduce((n, [, c]) => n + c, 0);
  report('signals', 'analyzing_events', count(ours.map((s) => s.analyzing)), 'events');
  report('signals', 'completed_events', count(ours.map((s) => s.completed)), 'events');
  report(
    'signals',
    'analyzing_p50',
    percentile(
      ours.map((s) => s.analyzing),
      0.5,
    ),
    'ms',
  );
  report(
    'signals',
    'analyzing_p99',
    percentile(
      ours.map((s) => s.analyzing),
      0.99,
    ),
    'ms',
  );
  report(
    'signals',
    'completed_p50',
    percentile(
      ours.map((s) => s.completed),
      0.5,
    ),
    'ms',
  );
  report(
    'signals',
    'completed_p99',
    percentile(
      ours.map((s) => s.completed),
      0.99,
    ),
    'ms',
  );
  report('signals', 'server_cpu', ((after.cpu - before.cpu) / elapsed) * 100, '% of one core');
  report('signals', 'server_rss', after.rss / 1024 / 1024, 'MB');

  // 3. The bare broadcaster, same clients, rate and bytes: it sends a stored signal of ours.
  const sample =
    ((await (await fetch(`${base}/api/signals?limit=1`)).json()) as Record<string, unknown>[])[0] ?? {};
  workers = startClients(`http://127.0.0.1:${barePort}/stream`);
  await allConnected(workers);
  const barePid = bare.pid ?? 0;
  const publish = (i: number) =>
    fetch(`http://127.0.0.1:${barePort}/publish`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...sample, id: String(i), signal_id: String(i), content: story(i) }),
    });
  await drive(1, publish);
  await sleep(500);
  await ask(workers, 'reset');
  const bareBefore = treeUsage(barePid);
  const bareStart = now();
  const bareSent = await drive(BARE_SECONDS, publish);
  await sleep(1000);
  const bareElapsed = (now() - bareStart) / 1000;
  const bareAfter = treeUsage(barePid);
  const bareStats = await ask(workers, 'stats');
  const bareEvents = bareStats.reduce((n, s) => n + s.events, 0);
  report(
    'signals',
    'bare_completed_p50',
    percentile(
      bareStats.map((s) => s.completed),
      0.5,
    ),
    'ms',
  );
  report(
    'signals',
    'bare_completed_p99',
    percentile(
      bareStats.map((s) => s.completed),
      0.99,
    ),
    'ms',
  );
  report('signals', 'bare_cpu', ((bareAfter.cpu - bareBefore.cpu) / bareElapsed) * 100, '% of one core');
  const ourRate = ourEvents / (sent * 2 * CLIENTS);
  const bareRate = bareEvents / (bareSent * 2 * CLIENTS);
  report('signals', 'fanout_ratio_vs_bare', ourRate / bareRate, 'ratio');
  report(
    'signals',
    'cpu_per_delivery_ratio_bare_vs_ours',
    (bareAfter.cpu - bareBefore.cpu) / bareEvents / ((after.cpu - before.cpu) / ourEvents),
    'ratio',
  );
} finally {
  for (const w of workers) w.kill('SIGTERM');
  bare.kill('SIGTERM');
  await server.stop();
  await rm(dataDir, { recursive: true, force: true });
}
