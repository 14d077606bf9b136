import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rule, RiskState } from '../../src/contracts/rules';
import {
  freePort,
  groupMembers,
  ROOT,
  runProcess,
  superviseProcess,
  waitForHealth,
  type SupervisedProcess,
} from '../helpers/process';
import { Api, signUp } from './support/api';
import { recordFigures } from './support/figures';
import { SHORT, sleep } from './support/mode';
import { ASSETS, startNewsBurst, type SentItem } from './support/news';
import { openSignalStream } from './support/sse';

/**
 * The built server started as a supervisor starts it (its own process group, output piped), used by a
 * few users (sign-in, orders, positions sockets, the signal stream, a rule firing on webhook news), then
 * stopped with SIGTERM to the group (`node dist/server/main.mjs`, as systemd or Docker run it) or SIGINT
 * to the group (`npm run serve`, as Ctrl+C in a terminal), while requests are in flight. The supervisor
 * reads the output, stops reading it (the pipe fills), or goes away (the pipe closes). Every process of
 * the group must be gone within the server's shutdown deadline. `SHUTDOWN_RUNS` sets the number of runs.
 */
const RUNS = Number(process.env.SHUTDOWN_RUNS ?? (SHORT ? 4 : 50));
const DEADLINE_MS = 10_000;
/** Beyond the deadline: the exit itself, and npm noticing its child is gone, on a busy machine. */
const SLACK_MS = 2_000;
const USERS = 3;
const SOCKETS = 30;
const PASSWORD = 'reliable Pa55word!';
const SUPERVISORS = ['reads', 'stops reading', 'goes away'] as const;

const Token = z.object({ access_token: z.string() });
const Ticket = z.object({ ticket: z.string() });

interface Run {
  run: number;
  how: string;
  supervisor: (typeof SUPERVISORS)[number];
  startMs: number;
  /** From the signal until no process of the group is left; null if one outlived the deadline. */
  exitMs: number | null;
  exitCode: string;
}

let dataDir: string;
const token = randomBytes(16).toString('hex');
const sent: SentItem[] = [];

beforeAll(async () => {
  // The server bundle, built once: every run starts it as `npm run serve` does. The browser app is left
  // alone (no page is loaded here, and other scenarios may be serving it meanwhile).
  const build = await runProcess(path.join(ROOT, 'node_modules/.bin/tsx'), ['server/build.ts']);
  if (build.code !== 0) throw new Error(`building the server failed:\n${build.stderr}`);
  dataDir = await mkdtemp(path.join(tmpdir(), 'sc-stop-'));
}, 300_000);
afterAll(async () => {
  if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
});

/** Signs the user up on the first run (with a rule per asset), then signs in on later ones. */
async function user(base: string, name: string, first: boolean): Promise<Api> {
  if (!first) {
    const api = new Api(base);
    const answer = await api.must(Token, 'POST', '/auth/token', { username: name, password: PASSWORD }, true);
    api.token = answer.access_token;
    return api;
  }
  const api = await signUp(base, name);
  await api.must(RiskState, 'PUT', '/rules/risk', {
    daily_budget_usd: 10_000_000,
    cooldown_minutes: 0,
    max_positions: 10,
    max_age_seconds: 3600,
  });
  for (const asset of ASSETS) {
    await api.must(Rule, 'POST', '/rules/', {
      ruleName: `${asset.ticker} any news`,
      conditions: { asset: asset.ticker },
      action: { type: 'trade', side: asset.side, amount_usd: 100 },
      isActive: true,
    });
  }
  return api;
}

/** A positions socket; a deaf one stops reading once open, so it never answers the close frame. */
async function positionsSocket(base: string, api: Api, deaf: boolean): Promise<WebSocket> {
  const { ticket } = await api.must(Ticket, 'POST', '/ws/ticket');
  const ws = new WebSocket(`${base.replace('http', 'ws')}/api/ws/positions?ticket=${ticket}`);
  ws.on('error', () => undefined);
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('close', () => reject(new Error('positions socket refused')));
  });
  if (deaf) (ws as unknown as { _socket: { pause(): void } })._socket.pause();
  return ws;
}

/** Orders, a few at a time per user, until `stop()`; answers cut by the stop are expected. */
function orderLoop(users: Api[]) {
  let stopped = false;
  const done = Promise.all(
    users.map(async (api, i) => {
      while (!stopped) {
        const asset = ASSETS[i % ASSETS.length] ?? ASSETS[0];
        const answer = await api.send('POST', '/orders', {
          symbol: `${asset.ticker}/USDT`,
          side: 'long',
          type: 'market',
          amount: 50,
        });
        if (answer === null) return;
        await sleep(20);
      }
    }),
  );
  return { stop: () => (stopped = true), done };
}

async function oneRun(run: number): Promise<Run> {
  const viaNpm = run % 2 === 1;
  const supervisor = SUPERVISORS[Math.floor(run / 2) % SUPERVISORS.length] ?? 'reads';
  const port = await freePort();
  const env = {
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    NEWS_SOURCES: 'webhook',
    INGEST_TOKEN: token,
    SHUTDOWN_TIMEOUT_MS: String(DEADLINE_MS),
  };
  const started = performance.now();
  const proc: SupervisedProcess = viaNpm
    ? superviseProcess('npm', ['run', 'serve', '--silent'], env)
    : superviseProcess(process.execPath, ['dist/server/main.mjs'], env);
  const base = `http://127.0.0.1:${port}`;
  const clients: { close(): void }[] = [];
  try {
    await waitForHealth(base, 120_000);
    const startMs = Math.round(performance.now() - started);
    const users = await Promise.all(
      Array.from({ length: USERS }, (_, i) => user(base, `stopper${i}`, run === 0)),
    );
    if (supervisor === 'stops reading') proc.stopReading();
    for (let i = 0; i < SOCKETS; i += 1) {
      const ws = await positionsSocket(base, users[i % USERS] as Api, i % 3 === 0);
      clients.push({ close: () => ws.terminate() });
    }
    for (let i = 0; i < 3; i += 1) clients.push(await openSignalStream(base));
    const webhook = new Api(base);
    webhook.token = token;
    const news = startNewsBurst({ webhook, sent, concurrency: 2 });
    const orders = orderLoop(users);
    // Enough requests (each logged) for a pipe nobody reads to fill.
    await Promise.all(
      Array.from({ length: 150 }, (_, i) => (users[i % USERS] as Api).send('GET', '/positions')),
    );
    await news.acknowledged(3);
    proc.signal(viaNpm ? 'SIGINT' : 'SIGTERM');
    if (supervisor === 'goes away') proc.goAway();
    const exitMs = await proc.gone(DEADLINE_MS + SLACK_MS);
    news.stop();
    orders.stop();
    await Promise.all([news.done, orders.done]);
    const code = /"shutdown did not finish within|exiting now/.exec(proc.output());
    return {
      run,
      how: viaNpm ? 'SIGINT to npm run serve' : 'SIGTERM to node',
      supervisor,
      startMs,
      exitMs,
      exitCode: code === null ? 'clean' : code[0],
    };
  } finally {
    for (const client of clients) client.close();
    if (proc.alive()) {
      const left = groupMembers(proc.pgid);
      proc.signal('SIGKILL');
      await proc.gone(10_000);
      // Named in the failure: the processes that outlived the deadline.
      console.error(
        `run ${run}: still running after the deadline: ${left.join(', ')}\n${proc.output().slice(-3000)}`,
      );
    }
  }
}

describe('a stopped server always exits', () => {
  it(`is gone within ${DEADLINE_MS / 1000} s of SIGTERM or Ctrl+C, ${RUNS} times under load`, async () => {
    const runs: Run[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      const result = await oneRun(run);
      runs.push(result);
      console.log(JSON.stringify(result));
      await sleep(100);
    }
    const late = runs.filter((r) => r.exitMs === null);
    const times = runs.flatMap((r) => (r.exitMs === null ? [] : [r.exitMs]));
    recordFigures('stop-signals', {
      runs: runs.length,
      outlivedDeadline: late.length,
      maxExitMs: Math.max(...times),
      medianExitMs: [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)],
      deadlineMs: DEADLINE_MS,
      notClean: runs.filter((r) => r.exitCode !== 'clean').length,
      maxStartMs: Math.max(...runs.map((r) => r.startMs)),
    });
    expect(late, 'runs whose processes outlived the deadline').toEqual([]);
    // Nothing was left pending until the deadline, and no run needed a second signal.
    expect(runs.filter((r) => r.exitCode !== 'clean')).toEqual([]);
    expect(Math.max(...times)).toBeLessThan(DEADLINE_MS + SLACK_MS);
  }, 3_600_000);
});
