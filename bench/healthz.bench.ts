import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { freePort, startServerProcess, waitForHealth } from '../tests/helpers/process';
import { report } from './lib/report';

/**
 * HTTP round trip of GET /api/healthz under 100 concurrent keep-alive connections, against the full
 * server and against a bare node:http server answering the same body, in the same run. Each server
 * runs in its own process; the load generator runs here.
 */
const CONNECTIONS = 100;
const ROUNDS = 4;
const ROUND_S = Number(process.env.BENCH_ROUND_S ?? 3);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/**
 * Alternates short rounds between the two servers so that a change in background load during the run
 * hits both alike; reports the median of the rounds.
 */
async function compare(urlA: string, urlB: string) {
  for (const url of [urlA, urlB]) await autocannon({ url, connections: CONNECTIONS, duration: 1 }); // warm-up
  const a: autocannon.Result[] = [];
  const b: autocannon.Result[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    a.push(await autocannon({ url: urlA, connections: CONNECTIONS, duration: ROUND_S }));
    b.push(await autocannon({ url: urlB, connections: CONNECTIONS, duration: ROUND_S }));
  }
  const pick = (rs: autocannon.Result[]) => ({
    rps: median(rs.map((r) => r.requests.average)),
    p50: median(rs.map((r) => r.latency.p50)),
    p99: median(rs.map((r) => r.latency.p99)),
    bad: rs.reduce((n, r) => n + r.non2xx + r.errors, 0),
  });
  return {
    a: pick(a),
    b: pick(b),
    ratios: a.map((r, i) => r.requests.average / (b[i]?.requests.average ?? NaN)),
  };
}

const dataDir = await mkdtemp(path.join(tmpdir(), 'sc-bench-'));
const ourPort = await freePort();
const ours = startServerProcess({ PORT: String(ourPort), DATA_DIR: dataDir, LOG_LEVEL: 'info' });
const ourBase = `http://127.0.0.1:${ourPort}`;
const body = JSON.stringify(await waitForHealth(ourBase));

const barePort = await freePort();
const bare = spawn(process.execPath, [path.join(import.meta.dirname, 'lib/bare-health-server.mjs')], {
  env: { PORT: String(barePort), BODY: body },
  stdio: ['ignore', 'pipe', 'inherit'],
});
await new Promise<void>((resolve) => bare.stdout?.once('data', () => resolve()));

try {
  const { a, b, ratios } = await compare(
    `${ourBase}/api/healthz`,
    `http://127.0.0.1:${barePort}/api/healthz`,
  );
  if (a.bad > 0) throw new Error(`the server answered ${a.bad} requests with an error`);
  report('healthz', 'server_rps', a.rps, 'req/s');
  report('healthz', 'server_p50', a.p50, 'ms');
  report('healthz', 'server_p99', a.p99, 'ms');
  report('healthz', 'bare_rps', b.rps, 'req/s');
  report('healthz', 'bare_p50', b.p50, 'ms');
  report('healthz', 'bare_p99', b.p99, 'ms');
  report('healthz', 'throughput_ratio_vs_bare', median(ratios), 'ratio');
} finally {
  bare.kill('SIGTERM');
  await ours.stop();
  await rm(dataDir, { recursive: true, force: true });
}
