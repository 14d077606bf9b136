import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { z } from 'zod';
import { Rule, RiskState } from '../src/contracts/rules';
import { PositionsMessage } from '../src/contracts/trading';
import { report } from './lib/report';
import { startBenchServer } from './lib/server';

/**
 * From a retraction's arrival to the position it unwinds closed, on the embedded default (`npm start`:
 * PGlite, simulated prices, paper exchange, webhook news): USERS users, each with a rule "BTC, positive,
 * long 150" and an open positions socket. Each round posts a rumour (a company's X account says it
 * bought Bitcoin), waits until every user's rule has fired, then posts the notice that the account was
 * hacked. Measured per user: from the notice's POST to the first positions frame on that user's socket
 * where the rumour's position is gone (webhook, analysis, link, the rules' unwind, the paper fill and the
 * socket frame).
 */
const USERS = Number(process.env.BENCH_RETRACTION_USERS ?? 10);
const ROUNDS = Number(process.env.BENCH_RETRACTION_ROUNDS ?? 20);
const INGEST = 'bench-ingest-token-0123456789abcdef';
const COMPANIES = ['Tesla', 'Nvidia', 'Boeing', 'Pfizer', 'Walmart', 'Netflix', 'Adobe', 'Intel', 'Oracle'];
const ROUND_TIMEOUT_MS = 10_000;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;

/** Round n's story and its retraction: company and amount differ from every other round's. */
function story(n: number) {
  const company = COMPANIES[n % COMPANIES.length] ?? 'Tesla';
  const amount = 100 + n * 37;
  const handle = company.toLowerCase();
  return {
    rumour: {
      content: `${company} buys $${amount} million of Bitcoin for its treasury, the company announced on X`,
      source_name: `${company} (X)`,
      username: handle,
    },
    notice: {
      content: `${company}'s X account was hacked: the post about a $${amount} million Bitcoin purchase was unauthorized, the company said`,
      source_name: 'Reuters',
    },
  };
}

/** One user's positions socket: the BTC size of each snapshot, with the time it arrived. */
class Watcher {
  btc = 0;
  private waiters: { until: (size: number) => boolean; resolve: (at: number) => void }[] = [];

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      const at = performance.now();
      const parsed = PositionsMessage.safeParse(JSON.parse(data.toString()));
      if (!parsed.success || parsed.data.type !== 'snapshot') return;
      this.btc = parsed.data.positions.find((p) => p.symbol === 'BTC/USDT')?.size ?? 0;
      this.waiters = this.waiters.filter((w) => {
        if (!w.until(this.btc)) return true;
        w.resolve(at);
        return false;
      });
    });
  }

  /** Resolves with the arrival time of the first frame (from now on) where `until` holds. */
  next(until: (size: number) => boolean): Promise<number> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no such frame in time')), ROUND_TIMEOUT_MS);
      this.waiters.push({
        until,
        resolve: (at) => {
          clearTimeout(timer);
          resolve(at);
        },
      });
    });
  }
}

/** One user's calls: signed up and logged in as the browser does. */
class Api {
  constructor(
    private readonly base: string,
    private readonly token: string,
  ) {}

  static async signUp(base: string, username: string): Promise<Api> {
    const password = 'bench Pa55word! retraction';
    const json = { 'content-type': 'application/json' };
    const body = JSON.stringify({ email: `${username}@example.com`, username, password });
    const made = await fetch(`${base}/api/auth/signup`, { method: 'POST', headers: json, body });
    if (made.status >= 300) throw new Error(`signup answered ${made.status}: ${await made.text()}`);
    const res = await fetch(`${base}/api/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username, password }).toString(),
    });
    const { access_token } = z.object({ access_token: z.string() }).parse(await res.json());
    return new Api(base, access_token);
  }

  async must<T>(schema: z.ZodType<T>, method: string, url: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.base}/api${url}`, {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (res.status >= 300) throw new Error(`${method} ${url} answered ${res.status}: ${await res.text()}`);
    return schema.parse(await res.json());
  }
}

async function post(base: string, item: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${base}/api/signals/ingest`, {
    method: 'POST',
    headers: { authorization: `Bearer ${INGEST}`, 'content-type': 'application/json' },
    body: JSON.stringify(item),
  });
  if (res.status !== 202) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
}

const { base, port, stop } = await startBenchServer('retraction', {
  SECRETS_KEY: randomBytes(32).toString('hex'),
  MARKET_SOURCE: 'sim',
  NEWS_SOURCES: 'webhook',
  INGEST_TOKEN: INGEST,
});
const sockets: WebSocket[] = [];
try {
  const users: Api[] = [];
  for (let i = 0; i < USERS; i++) users.push(await Api.signUp(base, `retract${i}`));
  const watchers: Watcher[] = [];
  for (const api of users) {
    await api.must(RiskState, 'PUT', '/rules/risk', {
      daily_budget_usd: 10_000_000,
      cooldown_minutes: 0,
      max_positions: 10,
      max_age_seconds: 3600,
    });
    await api.must(Rule, 'POST', '/rules/', {
      ruleName: 'BTC good news',
      conditions: { asset: 'BTC', sentiment: 'positive' },
      action: { type: 'trade', side: 'long', amount_usd: 150 },
      isActive: true,
    });
    const { ticket } = await api.must(z.object({ ticket: z.string() }), 'POST', '/ws/ticket');
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/ws/positions?ticket=${ticket}`);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    sockets.push(ws);
    watchers.push(new Watcher(ws));
  }

  const latencies: number[] = [];
  let missed = 0;
  for (let n = 0; n < ROUNDS; n++) {
    const { rumour, notice } = story(n);
    const opened = watchers.map((w) => w.next((size) => size > 0));
    await post(base, rumour);
    const fired = await Promise.allSettled(opened);
    if (fired.some((f) => f.status === 'rejected')) throw new Error(`round ${n}: the rumour fired no rule`);
    // Let the fills' own frames pass, so that the next flat frame is the unwind's.
    await new Promise((r) => setTimeout(r, 200));
    const closed = watchers.map((w) => w.next((size) => size === 0));
    const sent = performance.now();
    await post(base, notice);
    for (const outcome of await Promise.allSettled(closed)) {
      if (outcome.status === 'fulfilled') latencies.push(outcome.value - sent);
      else missed += 1;
    }
  }
  latencies.sort((a, b) => a - b);
  report('retraction', 'users', USERS, 'users');
  report('retraction', 'notice_to_position_closed_p50', percentile(latencies, 0.5), 'ms');
  report('retraction', 'notice_to_position_closed_p99', percentile(latencies, 0.99), 'ms');
  report('retraction', 'positions_left_open', missed, 'positions');
} finally {
  for (const ws of sockets) ws.close();
  await stop();
}
