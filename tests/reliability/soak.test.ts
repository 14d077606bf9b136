import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { OrderResponse } from '../../src/contracts/trading';
import { dbTargets, useDatabase, type ServerDatabase } from '../helpers/db';
import { ROOT } from '../helpers/process';
import { signUp, type Api } from './support/api';
import { now, type ClientKind, type CrowdFigures, type CrowdProcessOptions } from './support/crowd';
import { recordFigures } from './support/figures';
import { SHORT, sleep } from './support/mode';
import { newsItem } from './support/news';
import { median, readProc, sampleProc, type ProcSample } from './support/proc';
import { CrashableServer } from './support/server';

const DURATION_MS = SHORT ? 60_000 : 600_000;
/** Samples before this are the warm-up (caches, JIT, the story window filling) and are not compared. */
const WARMUP_MS = SHORT ? 15_000 : 90_000;
const SAMPLE_EVERY_MS = SHORT ? 2_000 : 5_000;
const CLIENTS = 500;
const SIGNALS_PER_S = 20;
const USERS = 8;
/**
 * What a stalled stream may fall behind before the server must have dropped it: its 512 KB bound, plus
 * what the kernel's socket buffers hold on loopback (about 4.5 MB measured here), plus slack.
 */
const SSE_MUST_DROP_BYTES = 8 * 1024 * 1024;
/** A price socket that answers no ping is dropped at the second 15 s heartbeat: within 30 s, and slack. */
const PRICES_MUST_DROP_MS = 35_000;

/**
 * A news item of about 1 KB, as a long post would be: a story of its own (a number no other item has),
 * then the ingest stamp the clients measure delivery from, then a paragraph of market colour.
 */
function story(i: number): { content: string; source_name: string; external_id: string } {
  const head = newsItem(i);
  return {
    content: `${head.content} [t=${now().toFixed(3)}] ${COLOUR}`,
    source_name: 'Wire',
    external_id: `soak-${i}`,
  };
}

const COLOUR =
  'Traders on several desks described order books as thin through the session, with funding drifting ' +
  'and open interest rising on the larger venues. Market makers widened quotes ahead of the weekly ' +
  'close while spot volumes stayed below their monthly average. Analysts pointed to steady inflows ' +
  'into exchange traded products, a quiet derivatives calendar and the absence of large liquidations ' +
  'as reasons for the calm. Some warned that leverage has been building in perpetual markets and that ' +
  'a sharp move in either direction could unwind it quickly. Others noted that stablecoin supply keeps ' +
  'growing, which has often preceded broader buying. Desk notes sent to clients suggested keeping ' +
  'position sizes modest until volatility returns, and watching options for a shift in sentiment.';

/**
 * Sends `rate` items a second to the webhook until `stop()`, in batches every 250 ms (the webhook takes
 * a list). At most 4 requests are in flight: when the server is behind, the items due wait for the next
 * batch (up to 50 in one) instead of piling up connections, so `sent` tells the rate it really took.
 */
function startNews(base: string, token: string, rate: number) {
  const started = now();
  let stopped = false;
  let next = 0;
  const counts = { sent: 0, accepted: 0, failed: [] as string[] };
  const inFlight = new Set<Promise<void>>();
  const post = (items: ReturnType<typeof story>[]) =>
    fetch(`${base}/api/signals/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ items }),
    })
      .then(async (res) => {
        const body = await res.text();
        const created = body.split('"result":"created"').length - 1;
        counts.accepted += created;
        if ((res.status !== 202 || created !== items.length) && counts.failed.length < 20)
          counts.failed.push(`${res.status} ${body.slice(0, 300)}`);
      })
      .catch((err: unknown) => {
        const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
        if (counts.failed.length < 20) counts.failed.push(`${String(err)}${cause}`);
      });
  const loop = (async () => {
    while (!stopped) {
      await sleep(250);
      if (inFlight.size >= 4) continue;
      const due = Math.min(Math.floor(((now() - started) * rate) / 1000), next + 50);
      if (due <= next) continue;
      const items = Array.from({ length: due - next }, (_, k) => story(next + k));
      next = due;
      counts.sent += items.length;
      const p = post(items).finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
  })();
  return {
    counts,
    async stop(): Promise<void> {
      stopped = true;
      await loop;
      await Promise.all([...inFlight]);
    },
  };
}

/** Median of the samples in the first and last third of the measured window (after the warm-up). */
function thirds(samples: readonly ProcSample[], from: number, to: number, pick: (s: ProcSample) => number) {
  const span = (to - from) / 3;
  const within = (a: number, b: number) => samples.filter((s) => s.at >= a && s.at <= b).map((s) => pick(s));
  return { first: median(within(from, from + span)), last: median(within(to - span, to)) };
}

const sum = (r: Record<ClientKind, number>) => r.sse + r.prices + r.positions;

/** The crowd, in a process of its own (support/crowd-process.ts). */
function startCrowd(options: CrowdProcessOptions) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'tests/reliability/support/crowd-process.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      CROWD_OPTIONS: JSON.stringify(options),
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = (type: string) =>
    new Promise<{ type: string; figures: CrowdFigures }>((resolve, reject) => {
      const onMessage = (m: { type: string; figures: CrowdFigures }) => {
        if (m.type !== type) return;
        child.off('message', onMessage);
        resolve(m);
      };
      child.on('message', onMessage);
      child.once('exit', (code) => reject(new Error(`the crowd exited with ${code} before '${type}'`)));
    });
  return {
    started: next('started'),
    async stop(): Promise<CrowdFigures> {
      const answer = next('done');
      child.send({ cmd: 'stop' });
      return (await answer).figures;
    },
    kill: () => child.kill('SIGKILL'),
  };
}

describe.each(dbTargets())('soak: clients joining, leaving and stalling, on %s', (name) => {
  const token = randomBytes(16).toString('hex');
  let target: ServerDatabase;
  let server: CrashableServer;
  let users: Api[] = [];

  beforeAll(async () => {
    target = await useDatabase(name, { server: true });
    server = await CrashableServer.create({ ...target.env, NEWS_SOURCES: 'webhook', INGEST_TOKEN: token });
    await server.start();
    users = await Promise.all(Array.from({ length: USERS }, (_, i) => signUp(server.base, `soak${i}`)));
    // Positions on paper, so that every tick of the simulated market moves a snapshot to their sockets.
    for (const api of users) {
      await api.must(OrderResponse, 'POST', '/orders', {
        symbol: 'BTC/USDT',
        side: 'long',
        type: 'market',
        amount: 500,
      });
      await api.must(OrderResponse, 'POST', '/orders', {
        symbol: 'ETH/USDT',
        side: 'short',
        type: 'market',
        amount: 300,
      });
    }
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    await target?.cleanup();
  });

  it(
    `keeps memory and handles flat for ${DURATION_MS / 1000} s of ${CLIENTS} clients and ${SIGNALS_PER_S} signals/s`,
    async () => {
      const pid = server.pid;
      const baseline = readProc(pid);
      const sampler = sampleProc(pid, SAMPLE_EVERY_MS);
      const crowd = startCrowd({
        base: server.base,
        size: CLIENTS - 1,
        mix: { sse: 0.45, prices: 0.35, positions: 0.2 },
        slowShare: 0.1,
        lifetimeMs: [5_000, 30_000],
        slowHoldMs: SHORT ? 40_000 : 90_000,
        rampMs: SHORT ? 10_000 : 30_000,
        tokens: users.map((u) => u.token ?? ''),
      });
      onTestFinished(() => {
        crowd.kill();
      });
      await crowd.started;
      const news = startNews(server.base, token, SIGNALS_PER_S);
      await sleep(DURATION_MS);
      await news.stop();
      const runEnd = sampler.samples.at(-1)?.at ?? DURATION_MS;
      const stats = await crowd.stop();
      // Every client has gone: the handles must come back to where they were.
      let after = readProc(pid);
      for (let i = 0; i < 30 && after.handles > baseline.handles + 5; i += 1) {
        await sleep(1000);
        after = readProc(pid);
      }
      const samples = sampler.stop();

      const rss = thirds(samples, WARMUP_MS, runEnd, (s) => s.rssMb);
      const handles = thirds(samples, WARMUP_MS, runEnd, (s) => s.handles);
      const peakRss = Math.max(...samples.map((s) => s.rssMb));
      const peakHandles = Math.max(...samples.map((s) => s.handles));
      recordFigures(`soak-${name}`, {
        db: name,
        durationS: DURATION_MS / 1000,
        clients: CLIENTS,
        signalsPerS: SIGNALS_PER_S,
        signalsSent: news.counts.sent,
        signalsPerSTaken: Math.round((news.counts.accepted / (runEnd / 1000)) * 10) / 10,
        rssMb: { start: baseline.rssMb, peak: peakRss, end: after.rssMb },
        rssMedianMb: { firstThird: rss.first, lastThird: rss.last },
        fds: { start: baseline.fds, end: after.fds },
        handles: { start: baseline.handles, peak: peakHandles, end: after.handles },
        handlesMedian: { firstThird: handles.first, lastThird: handles.last },
        served: { total: sum(stats.served), ...stats.served },
        slow: { total: sum(stats.slow), ...stats.slow },
        slowDropped: { total: sum(stats.slowDropped), ...stats.slowDropped },
        failed: { total: sum(stats.failed), ...stats.failed },
        deliveryMs: { p50: stats.analyzing.p50, p99: stats.analyzing.p99, deliveries: stats.analyzing.count },
        completedMs: { p50: stats.completed.p50, p99: stats.completed.p99 },
        pushedMb: {
          sse: Math.round(stats.bytes.sse / 1e6),
          prices: Math.round(stats.bytes.prices / 1e6),
          positions: Math.round(stats.bytes.positions / 1e6),
        },
      });

      expect(news.counts.failed, 'news items not taken').toEqual([]);
      expect(stats.failures, 'clients that could not connect or failed').toEqual([]);
      expect(stats.cuts, 'reading clients the server closed').toEqual([]);
      const sseKept = stats.slowKept.filter((k) => k.kind === 'sse' && k.behindBytes > SSE_MUST_DROP_BYTES);
      expect(sseKept, 'stalled streams kept open far past the bound').toEqual([]);
      const pricesKept = stats.slowKept.filter((k) => k.kind === 'prices' && k.heldMs > PRICES_MUST_DROP_MS);
      expect(pricesKept, 'stalled price sockets kept open past the heartbeat check').toEqual([]);
      expect(stats.analyzing.count, 'signals delivered to reading streams').toBeGreaterThan(0);

      // Memory flat after the warm-up: the last third's median within 20 % (or 40 MB) of the first third's.
      expect(rss.last, `RSS ${JSON.stringify(samples.map((s) => s.rssMb))}`).toBeLessThanOrEqual(
        Math.max(rss.first * 1.2, rss.first + 40),
      );
      // Open handles follow the clients connected (one each), never more; once they leave, the count is back.
      expect(peakHandles, `handles ${JSON.stringify(samples.map((s) => s.handles))}`).toBeLessThanOrEqual(
        baseline.handles + CLIENTS * 1.5,
      );
      expect(after.handles, 'open handles once every client left').toBeLessThanOrEqual(baseline.handles + 5);
      expect(stats.analyzing.p99, 'delivery p99 (ms)').toBeLessThan(5_000);
    },
    DURATION_MS + 240_000,
  );
});
