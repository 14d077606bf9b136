import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WebSocket } from 'ws';
import { SYMBOLS } from '../src/contracts/symbols';
import { HUB_DEFAULTS } from '../server/modules/market/price-hub.types';
import { freePort, startServerProcess, waitForHealth } from '../tests/helpers/process';
import { report } from './lib/report';

/**
 * Price fan-out: 1,000 WebSocket clients subscribed to 20 symbols, the simulator ticking every symbol
 * 10 times a second, against the full server's /api/ws/prices and a bare `ws` broadcaster doing the same
 * coalesced broadcast, alternating rounds in the same run. Prints tick→client and send→client latency,
 * the server's CPU and RSS, and ratios against the bare server. Everything stays on 127.0.0.1.
 */
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 1_000);
const TICK_MS = 100;
const ROUNDS = 3;
const WARMUP_MS = 2_000;
const ROUND_MS = Number(process.env.BENCH_ROUND_S ?? 6) * 1_000;
const WATCHED = SYMBOLS.slice(0, 20).map((s) => s.symbol);
const CLK_TCK = 100;

/** Bounded: whatever happens, the bench ends within two minutes of the servers answering. */
function guard(): void {
  setTimeout(() => {
    process.stderr.write('prices bench: over the time limit, stopping\n');
    process.exit(1);
  }, 115_000).unref();
}

interface Sample {
  e2e: number[];
  fanout: number[];
  items: number;
}

/** CPU seconds and RSS of a process and its descendants (Linux /proc). */
function usage(rootPid: number): { cpu: number; rssMb: number } {
  const parent = new Map<number, number>();
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited meanwhile
    }
  }
  const tree = [rootPid];
  for (let i = 0; i < tree.length; i++) {
    for (const [pid, ppid] of parent) if (ppid === tree[i]) tree.push(pid);
  }
  let cpu = 0;
  let rss = 0;
  for (const pid of tree) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      cpu += (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      rss += Number(m?.[1] ?? 0) / 1024;
    } catch {
      // exited meanwhile
    }
  }
  return { cpu, rssMb: rss };
}

/** Opens the clients (in batches) and subscribes each to the 20 symbols. */
async function connectAll(url: string, sample: { current: Sample | null }): Promise<WebSocket[]> {
  const sockets: WebSocket[] = [];
  for (let i = 0; i < CLIENTS; i += 100) {
    const batch = Array.from({ length: Math.min(100, CLIENTS - i) }, () => {
      const ws = new WebSocket(url);
      ws.on('message', (data) => {
        const now = Date.now();
        const s = sample.current;
        if (s === null) return;
        const msg = JSON.parse(data.toString()) as { type: string; t: number; data?: { t: number }[] };
        if (msg.type !== 'prices' || msg.data === undefined) return;
        s.fanout.push(now - msg.t);
        for (const item of msg.data) s.e2e.push(now - item.t);
        s.items += msg.data.length;
      });
      return new Promise<WebSocket>((resolve, reject) => {
        ws.once('open', () => {
          ws.send(JSON.stringify({ op: 'subscribe', symbols: WATCHED }));
          resolve(ws);
        });
        ws.once('error', reject);
      });
    });
    sockets.push(...(await Promise.all(batch)));
  }
  return sockets;
}

const pct = (xs: number[], p: number): number => {
  const sorted = Float64Array.from(xs).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function round(url: string, pid: number) {
  const holder: { current: Sample | null } = { current: null };
  const sockets = await connectAll(url, holder);
  await new Promise((r) => setTimeout(r, WARMUP_MS));
  const sample: Sample = { e2e: [], fanout: [], items: 0 };
  const before = usage(pid);
  const t0 = Date.now();
  holder.current = sample;
  await new Promise((r) => setTimeout(r, ROUND_MS));
  holder.current = null;
  const after = usage(pid);
  const secs = (Date.now() - t0) / 1_000;
  const open = sockets.filter((s) => s.readyState === WebSocket.OPEN).length;
  for (const s of sockets) s.terminate();
  await new Promise((r) => setTimeout(r, 500));
  return {
    e2eP50: pct(sample.e2e, 50),
    e2eP99: pct(sample.e2e, 99),
    fanP50: pct(sample.fanout, 50),
    fanP99: pct(sample.fanout, 99),
    cpuPct: ((after.cpu - before.cpu) / secs) * 100,
    rssMb: after.rssMb,
    itemsPerS: sample.items / secs,
    open,
  };
}

const dataDir = await mkdtemp(path.join(tmpdir(), 'sc-bench-'));
const ourPort = await freePort();
const ours = startServerProcess({
  PORT: String(ourPort),
  DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  MARKET_SOURCE: 'sim',
  MARKET_SIM_TICK_MS: String(TICK_MS),
});
// A first start creates the database, which takes a minute or more on a busy machine.
await waitForHealth(`http://127.0.0.1:${ourPort}`, 240_000);
guard();

const barePort = await freePort();
const bare: ChildProcess = spawn(
  process.execPath,
  [path.join(import.meta.dirname, 'lib/bare-price-server.mjs')],
  {
    env: {
      PORT: String(barePort),
      TICK_MS: String(TICK_MS),
      // The same window as the server's price socket.
      FLUSH_MS: String(HUB_DEFAULTS.flushMs),
      SYMBOLS: SYMBOLS.map((s) => s.symbol).join(','),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
await new Promise<void>((resolve) => bare.stdout?.once('data', () => resolve()));

// Footprint before any client connects; it includes PGlite and start-up garbage not yet collected.
await new Promise((r) => setTimeout(r, 5_000));
const idle = { server: usage(ours.child.pid ?? 0).rssMb, bare: usage(bare.pid ?? 0).rssMb };

try {
  const a: Awaited<ReturnType<typeof round>>[] = [];
  const b: Awaited<ReturnType<typeof round>>[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    a.push(await round(`ws://127.0.0.1:${ourPort}/api/ws/prices`, ours.child.pid ?? 0));
    b.push(await round(`ws://127.0.0.1:${barePort}`, bare.pid ?? 0));
    if (process.env.BENCH_VERBOSE)
      process.stderr.write(`${JSON.stringify({ ours: a.at(-1), bare: b.at(-1) })}\n`);
  }
  if (a.some((r) => r.open < CLIENTS)) throw new Error('the server dropped clients during the run');
  const pick = (rs: typeof a, k: keyof (typeof a)[number]) => median(rs.map((r) => r[k]));
  for (const [name, rs] of [
    ['server', a],
    ['bare', b],
  ] as const) {
    report('prices', `${name}_tick_to_client_p50`, pick(rs, 'e2eP50'), 'ms');
    report('prices', `${name}_tick_to_client_p99`, pick(rs, 'e2eP99'), 'ms');
    report('prices', `${name}_send_to_client_p50`, pick(rs, 'fanP50'), 'ms');
    report('prices', `${name}_send_to_client_p99`, pick(rs, 'fanP99'), 'ms');
    report('prices', `${name}_cpu`, pick(rs, 'cpuPct'), '%');
    report('prices', `${name}_rss_idle`, idle[name], 'MB');
    report('prices', `${name}_rss`, pick(rs, 'rssMb'), 'MB');
    report('prices', `${name}_prices_delivered`, pick(rs, 'itemsPerS'), 'prices/s');
  }
  report('prices', 'tick_to_client_p99_ratio_vs_bare', pick(b, 'e2eP99') / pick(a, 'e2eP99'), 'ratio');
  report('prices', 'send_to_client_p99_ratio_vs_bare', pick(b, 'fanP99') / pick(a, 'fanP99'), 'ratio');
  report('prices', 'delivered_ratio_vs_bare', pick(a, 'itemsPerS') / pick(b, 'itemsPerS'), 'ratio');
  report('prices', 'cpu_ratio_vs_bare', pick(b, 'cpuPct') / pick(a, 'cpuPct'), 'ratio');
} finally {
  bare.kill('SIGTERM');
  await ours.stop();
  await rm(dataDir, { recursive: true, force: true });
}
