import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SYMBOLS } from '../../src/contracts/symbols';

/**
 * The pieces of a signal fan-out load: stamped stories for the webhook, SSE client processes
 * (`sse-clients.mjs`) and their merged histograms, a paced sender, and CPU and RSS read from /proc.
 */
export const now = () => performance.timeOrigin + performance.now();
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Distinct stories (one per ticker and template; the stamp is a number, a key of its own). */
const TEMPLATES = [
  (t: string, n: string) => `Binance will list ${n} (${t}) perpetual contracts with 20x leverage`,
  (t: string, n: string) => `${n} network upgrade goes live, ${t} deposits resume on major exchanges`,
  (t: string) => `Whale moves a large ${t} position to an exchange, traders brace for volatility`,
  (t: string, n: string) => `${n} team announces a ${t} buyback funded by protocol revenue`,
  (t: string, n: string) =>
    `Attacker drains funds from a ${n} bridge; ${t} holders urged to revoke approvals`,
];
/**
 * A story stamped `[t=…]` with the time it is sent, which the clients subtract from its arrival; an
 * unstamped one (`stamped` false, for warm-ups) is not counted by the clients however late it arrives.
 */
export function story(i: number, stamped = true): string {
  const s = SYMBOLS[i % SYMBOLS.length] ?? SYMBOLS[0];
  const tpl = TEMPLATES[Math.floor(i / SYMBOLS.length) % TEMPLATES.length] ?? TEMPLATES[0];
  const mark = stamped ? `[t=${now().toFixed(3)}]` : `(${now().toFixed(3)})`;
  return `${tpl?.(s?.ticker ?? 'BTC', s?.name ?? 'Bitcoin')} ${mark}`;
}

/** [bucket, count] pairs; a bucket is 0.05 ms. */
export type Hist = [number, number][];
export interface ClientStats {
  ready: number;
  events: number;
  dropped: number;
  analyzing: Hist;
  completed: Hist;
}

export function percentile(hists: Hist[], p: number): number {
  const merged = new Map<number, number>();
  for (const h of hists) for (const [b, n] of h) merged.set(b, (merged.get(b) ?? 0) + n);
  const sorted = [...merged].sort((a, b) => a[0] - b[0]);
  const total = sorted.reduce((n, [, c]) => n + c, 0);
  let seen = 0;
  for (const [b, c] of sorted) {
    seen += c;
    if (seen >= p * total) return b * 0.05;
  }
  return NaN;
}

export const countOf = (hists: Hist[]) => hists.flat().reduce((n, [, c]) => n + c, 0);

/** One child process holding `count` raw SSE clients on `url`. */
export function startClients(url: string, count: number): ChildProcess {
  return fork(path.join(import.meta.dirname, 'sse-clients.mjs'), [], {
    env: { URL: url, COUNT: String(count) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

const EMPTY: ClientStats = { ready: 0, events: 0, dropped: 0, analyzing: [], completed: [] };

/**
 * Asks every client process for its counters. A process too busy to answer within `ms` counts as
 * `null`, so that a saturated load generator shows up in the figures instead of stalling the run.
 */
export function askStats(workers: ChildProcess[], ms = 10_000): Promise<(ClientStats | null)[]> {
  return Promise.all(
    workers.map(
      (w) =>
        new Promise<ClientStats | null>((resolve) => {
          if (!w.connected) return resolve(null);
          const timer = setTimeout(() => {
            w.off('message', onMessage);
            resolve(null);
          }, ms);
          const onMessage = (m: unknown) => {
            clearTimeout(timer);
            resolve(m as ClientStats);
          };
          w.once('message', onMessage);
          w.send({ cmd: 'stats' });
        }),
    ),
  );
}

export function resetStats(workers: ChildProcess[]): void {
  for (const w of workers) if (w.connected) w.send({ cmd: 'reset' });
}

export const merged = (stats: (ClientStats | null)[]): ClientStats[] => stats.map((s) => s ?? EMPTY);

/** Waits until `want` clients have their stream open, or `ms` passed; returns how many have. */
export async function waitConnected(workers: ChildProcess[], want: number, ms: number): Promise<number> {
  const deadline = Date.now() + ms;
  for (;;) {
    const ready = merged(await askStats(workers)).reduce((n, s) => n + s.ready, 0);
    if (ready >= want || Date.now() > deadline) return ready;
    await sleep(250);
  }
}

/** CPU seconds and RSS (bytes) of a process and its children. */
export function treeUsage(pid: number): { cpu: number; rss: number } {
  const tick = 100;
  let cpu = 0;
  let rss = 0;
  const visit = (p: number) => {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      cpu += (Number(stat[11]) + Number(stat[12])) / tick;
      rss += Number(stat[21]) * 4096;
      const kids = readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim();
      for (const k of kids === '' ? [] : kids.split(' ')) visit(Number(k));
    } catch {
      // gone
    }
  };
  visit(pid);
  return { cpu, rss };
}

export interface Paced {
  sent: number;
  ok: number;
  /** Answered with an error status. */
  failed: number;
  /** Abandoned after the timeout (the server may still take them in later). */
  timedOut: number;
  /** Request round trips of the accepted posts, sorted (ms). */
  latencies: number[];
  seconds: number;
}

/**
 * Sends `rate` requests/s for `seconds` (on schedule, never waiting for answers), each abandoned after
 * `timeoutMs`; resolves when every one has answered or been abandoned.
 */
export async function paced(
  rate: number,
  seconds: number,
  send: (i: number, signal: AbortSignal) => Promise<Response>,
  timeoutMs = 10_000,
): Promise<Paced> {
  const started = now();
  const pending: Promise<void>[] = [];
  const latencies: number[] = [];
  let failed = 0;
  let timedOut = 0;
  const total = Math.round(rate * seconds);
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - now();
    if (wait > 0) await sleep(wait);
    const at = now();
    pending.push(
      send(i, AbortSignal.timeout(timeoutMs))
        .then(async (r) => {
          await r.arrayBuffer();
          if (r.ok) latencies.push(now() - at);
          else failed += 1;
        })
        .catch((err: unknown) => {
          if (err instanceof DOMException && err.name === 'TimeoutError') timedOut += 1;
          else failed += 1;
        }),
    );
  }
  await Promise.all(pending);
  latencies.sort((a, b) => a - b);
  return {
    sent: total,
    ok: latencies.length,
    failed,
    timedOut,
    latencies,
    seconds: (now() - started) / 1000,
  };
}

export const sortedPercentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
