import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { freePort, startServerProcess, waitForHealth } from '../tests/helpers/process';
import { report } from './lib/report';

/**
 * HTTP round trip of GET /api/healthz under 100 concurrent keep-alive connections, against the full
 * server and against a bare node:http server answering the same body, in the same run. Each server
 * runs in its own process; the load generator runs here. Also the CPU time each server spends per
 * request (from /proc), whose ratio is what requests per second would show on a machine with no other work.
 */
const CONNECTIONS = 100;
const ROUNDS = 4;
const ROUND_S = Number(process.env.BENCH_ROUND_S ?? 3);
const IDLE_MS = 5000;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/**
 * Alternates short rounds between the two servers so that a change in background load during the run
 * hits both alike; reports the median of the rounds.
 */
async function compare(urlA: string, pidA: number, urlB: string, pidB: number) {
  for (const url of [urlA, urlB]) await autocannon({ url, connections: CONNECTIONS, duration: 1 }); // warm-up
  const a: autocannon.Result[] = [];
  const b: autocannon.Result[] = [];
  const cpuA: number[] = [];
  const cpuB: number[] = [];
  const round = async (url: string, pid: number, results: autocannon.Result[], cpu: number[]) => {
    const before = await cpuMs(pid);
    const started = performance.now();
    const r = await autocannon({ url, connections: CONNECTIONS, duration: ROUND_S });
    results.push(r);
    const idle = (pid === pidA ? idleA : idleB) * (performance.now() - started);
    cpu.push((await cpuMs(pid)) - before - idle);
  };
  // The server's own background work (simulated prices, replayed news) spends CPU with no request at
  // all: measured idle and taken off each round's time.
  const idleRate = async (pid: number) => {
    const before = await cpuMs(pid);
    await sleep(IDLE_MS);
    return ((await cpuMs(pid)) - before) / IDLE_MS;
  };
  const idleA = await idleRate(pidA);
  const idleB = await idleRate(pidB);
  for (let i = 0; i < ROUNDS; i++) {
    await round(urlA, pidA, a, cpuA);
    await round(urlB, pidB, b, cpuB);
  }
  // CPU time per answered request: unlike requests per second, it barely moves when other work shares
  // the cores, so the ratio holds on a busy machine too.
  const perRequest = (rs: autocannon.Result[], cpu: number[]) =>
    median(rs.map((r, i) => (cpu[i] ?? NaN) / Math.max(1, r.requests.total)));
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
    cpuPerRequest: { a: perRequest(a, cpuA), b: perRequest(b, cpuB) },
  };
}

const CLOCK_TICKS_PER_S = 100;
/** User plus system CPU time of a process so far, from /proc (Linux). */
async function cpuMs(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).replace(/^.*\) /s, '').split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S;
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
  const { a, b, ratios, cpuPerRequest } = await compare(
    `${ourBase}/api/healthz`,
    ours.child.pid ?? NaN,
    `http://127.0.0.1:${barePort}/api/healthz`,
    bare.pid ?? NaN,
  );
  if (a.bad > 0) throw new Error(`the server answered ${a.bad} requests with an error`);
  report('healthz', 'server_rps', a.rps, 'req/s');
  report('healthz', 'server_p50', a.p50, 'ms');
  report('healthz', 'server_p99', a.p99, 'ms');
  report('healthz', 'bare_rps', b.rps, 'req/s');
  report('healthz', 'bare_p50', b.p50, 'ms');
  report('healthz', 'bare_p99', b.p99, 'ms');
  report('healthz', 'throughput_ratio_vs_bare', median(ratios), 'ratio');
  report('healthz', 'server_cpu_per_request', cpuPerRequest.a * 1000, 'µs');
  report('healthz', 'bare_cpu_per_request', cpuPerRequest.b * 1000, 'µs');
  report('healthz', 'cpu_ratio_bare_over_server', cpuPerRequest.b / cpuPerRequest.a, 'ratio');
} finally {
  bare.kill('SIGTERM');
  await ours.stop();
  await rm(dataDir, { recursive: true, force: true });
}
