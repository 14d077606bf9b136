import { fork } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { SYMBOLS } from '../../src/contracts/symbols';
import { buildApp } from '../../server/app';
import { loadConfig } from '../../server/config';
import type { Database } from '../../server/db/client';
import { riskSettings, ruleDecisions, rules, users } from '../../server/db/schema';
import { createAccessTokens } from '../../server/plugins/auth-guard';
import { createSecrets } from '../../server/plugins/secrets';
import { report } from './report';
import { busyMs, timeline, type TracedStatement } from './statement-trace';
import { now, sortedPercentile } from './sse-load';

/**
 * The news-to-order bench's parts (bench/news-to-order.bench.ts): the server it starts in its own
 * process, the users, rules and ledger it seeds straight into the database, the client process, the
 * headlines it posts, and the figures it prints per headline.
 */

export const INGEST = 'bench-ingest-token-0123456789abcdef';

/** [user index, symbol, when a snapshot holding a position on it arrived, when the server sent it]. */
export type Held = [number, string, number, number];

/** Positive headlines, one coin each (the local analyzer tags the coin and reads them as positive). */
export const COINS = SYMBOLS.filter((s) => !s.symbol.startsWith('1000')).slice(0, 60);
const POSITIVE = [
  (t: string, n: string) => `${n} (${t}) ETF approved by the SEC, first-day inflows hit a record`,
  (t: string, n: string) => `BlackRock buys a large stake in ${t} as ${n} rallies to a new all-time high`,
  (t: string, n: string) => `Visa partners with the ${n} foundation to settle payments in ${t}`,
  (t: string, n: string) => `Coinbase and Robinhood list ${n} (${t}); trading volume surges fivefold`,
  (t: string, n: string) => `${n} treasury announces a ${t} buyback after record quarterly revenue`,
];
export function positiveHeadline(n: number): { content: string; symbol: string } {
  const coin = COINS[n % COINS.length] ?? COINS[0];
  const tpl = POSITIVE[n % POSITIVE.length] ?? POSITIVE[0];
  if (coin === undefined || tpl === undefined) throw new Error('no symbols');
  const round = Math.floor(n / COINS.length);
  return { content: `${tpl(coin.ticker, coin.name)}${round > 0 ? ` (${round})` : ''}`, symbol: coin.symbol };
}

export const loadAverage = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);

export interface Started {
  app: FastifyInstance;
  api: FastifyInstance;
  base: string;
  /** When each signal's completion was announced on the bus (ms, epoch). */
  completedAt: Map<string, number>;
  secretsKey: string;
}

export async function startServer(database: Database, dataDir: string): Promise<Started> {
  const secretsKey = randomBytes(32).toString('hex');
  const config = loadConfig(
    {
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      MARKET_SOURCE: 'sim',
      NEWS_SOURCES: 'webhook',
      INGEST_TOKEN: INGEST,
      SECRETS_KEY: secretsKey,
    },
    'bench',
  );
  let api: FastifyInstance | undefined;
  const app = await buildApp(config, {
    database,
    logStream: { write: () => undefined },
    onApi: (scope) => (api = scope),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  if (api === undefined) throw new Error('no /api scope');
  const completedAt = new Map<string, number>();
  app.bus.subscribe('signal.published', ({ signal }) => {
    if (signal.analysis.status === 'completed' && !completedAt.has(signal.id)) {
      completedAt.set(signal.id, now());
    }
  });
  const { port } = app.server.address() as AddressInfo;
  return { app, api, base: `http://127.0.0.1:${port}`, completedAt, secretsKey };
}

/** Users straight into the database, and a bearer token for each (as a sign-in would give). */
export async function seedUsers(database: Database, count: number, prefix: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 500) {
    const rows = await database.db
      .insert(users)
      .values(
        Array.from({ length: Math.min(500, count - i) }, (_, j) => ({
          email: `${prefix}${i + j}@example.com`,
          username: `${prefix}${i + j}`,
        })),
      )
      .returning({ id: users.id });
    ids.push(...rows.map((r) => r.id));
  }
  // Limits that let every match trade: the figure is the order path, not the skips.
  for (let i = 0; i < ids.length; i += 500) {
    await database.db.insert(riskSettings).values(
      ids.slice(i, i + 500).map((userId) => ({
        userId,
        maxOrderUsd: '1000000',
        dailyBudgetUsd: '100000000',
        maxPositions: 500,
        cooldownMinutes: 0,
        maxAgeSeconds: 600,
      })),
    );
  }
  return ids;
}

export function tokens(secretsKey: string) {
  const signer = createAccessTokens(createSecrets(Buffer.from(secretsKey, 'hex')).deriveKey('jwt'));
  return (userId: string) => signer.sign({ userId, role: 'user', familyId: randomUUID() });
}

export function postDirect(base: string, content: string, externalId: string): Promise<Response> {
  return fetch(`${base}/api/signals/ingest`, {
    method: 'POST',
    headers: { authorization: `Bearer ${INGEST}`, 'content-type': 'application/json' },
    body: JSON.stringify({ content, source_name: 'Bench Wire', external_id: externalId }),
  });
}

/** The client process (bench/lib/news-clients.mjs) and a way to ask it one thing at a time. */
export function clients() {
  const child = fork(path.join(import.meta.dirname, 'news-clients.mjs'), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ask = <T>(msg: Record<string, unknown>): Promise<T> =>
    new Promise((resolve, reject) => {
      child.once('message', (m: { cmd: string; detail?: string }) =>
        m.cmd === 'error' ? reject(new Error(m.detail)) : resolve(m as T),
      );
      child.send(msg);
    });
  return { ask, exit: () => child.connected && child.send({ cmd: 'exit' }) };
}

export interface Posted {
  at: number;
  answered: number;
  status: number;
  result: { result: string; id: string | null } | null;
}

/**
 * Each rule's past: `days` days of `perDay` decisions before today (fired, some skipped), as an active
 * trader's ledger holds. What reads a user's recent decisions must not walk all of them.
 */
export async function seedHistory(database: Database, days: number, perDay: number): Promise<void> {
  const owned = await database.db
    .select({ id: rules.id, userId: rules.userId, name: rules.name })
    .from(rules);
  const day = 86_400_000;
  const start = Date.now() - (days + 1) * day;
  const rows: (typeof ruleDecisions.$inferInsert)[] = [];
  for (const rule of owned) {
    for (let k = 0; k < days * perDay; k++) {
      const fired = k % 4 !== 0;
      rows.push({
        userId: rule.userId,
        ruleId: rule.id,
        ruleName: rule.name,
        ruleVersion: 1,
        signalId: -(k + 1),
        asset: 'BTC',
        symbol: 'BTCUSDT',
        side: 'long',
        amountUsd: '200',
        outcome: fired ? 'fired' : 'skipped',
        reason: fired ? null : 'cooldown',
        notional: fired ? '200.12' : null,
        price: '100000',
        quantity: fired ? '0.002' : null,
        decidedAt: new Date(start + (k * day) / perDay),
      });
    }
  }
  for (let i = 0; i < rows.length; i += 2000) {
    await database.db.insert(ruleDecisions).values(rows.slice(i, i + 2000));
  }
}

/** `count` rules over `userIds`, narrow enough (5-point impact bands) that a headline matches a few. */
export async function seedRules(
  database: Database,
  userIds: readonly string[],
  count: number,
): Promise<void> {
  let seed = 42;
  const rand = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const tickers = SYMBOLS.map((s) => s.ticker);
  const sentiments = ['positive', 'negative', 'neutral'] as const;
  const seeded = Array.from({ length: count }, (_, i) => {
    const low = Math.floor(rand() * 95);
    return {
      userId: userIds[i % userIds.length] as string,
      name: `bench ${i}`,
      asset: tickers[Math.floor(rand() * tickers.length)] ?? 'BTC',
      sentiment: sentiments[Math.floor(rand() * 3)] ?? 'positive',
      minImpact: low,
      maxImpact: low + 5,
      side: rand() < 0.5 ? ('long' as const) : ('short' as const),
      amountUsd: '120',
      createdAt: new Date(Date.now() - count + i),
    };
  });
  for (let i = 0; i < seeded.length; i += 1000)
    await database.db.insert(rules).values(seeded.slice(i, i + 1000));
}

/**
 * A headline's thirty frames rise and fall together, so a run's p99 is its slowest headline, and that is
 * most often the first after the start (code and the database's caches cold). Printed apart: the first
 * headline's slowest frame, the p99 of the headlines after it, and the median over headlines of each
 * one's slowest frame (what a trader waits for the last of the thirty positions).
 */
export function reportByHeadline(
  bench: string,
  sent: readonly { at: number; symbol: string }[],
  held: readonly Held[],
): void {
  const slowest: number[] = [];
  const later: number[] = [];
  sent.forEach((s, n) => {
    const frames = held.filter(([, symbol]) => symbol === s.symbol).map(([, , at]) => at - s.at);
    if (frames.length === 0) return;
    slowest.push(Math.max(...frames));
    if (n > 0) later.push(...frames);
  });
  later.sort((a, b) => a - b);
  report(bench, 'position_first_headline_max', slowest[0] ?? NaN, 'ms');
  report(bench, 'position_later_headlines_p99', sortedPercentile(later, 0.99), 'ms');
  report(
    bench,
    'position_headline_max_p50',
    sortedPercentile(
      [...slowest].sort((a, b) => a - b),
      0.5,
    ),
    'ms',
  );
}

/**
 * For every headline, how long until its last position frame and how much of that the database was
 * running statements; then the statements of the headlines whose last frame came first and last: when
 * each was asked for, began and ended. The database's idle time between them is the server's own work
 * (and the sockets').
 */
export function traceHeadlines(
  statements: readonly TracedStatement[],
  sent: readonly { at: number; symbol: string }[],
  held: readonly Held[],
): void {
  const byHeadline = sent.map((s, n) => {
    const frames = held.filter(([, symbol]) => symbol === s.symbol).map(([, , at]) => at);
    return { n, at: s.at, until: frames.length === 0 ? s.at : Math.max(...frames) };
  });
  console.error('headline  last frame  database busy (ms after the post)');
  for (const h of byHeadline) {
    const busy = busyMs(statements, h.at, h.until);
    console.error(
      `${String(h.n).padStart(8)} ${(h.until - h.at).toFixed(1).padStart(11)} ${busy.toFixed(1).padStart(14)}`,
    );
  }
  const ranked = [...byHeadline].sort((a, b) => a.until - a.at - (b.until - b.at));
  for (const h of [ranked[0], ranked.at(-1)]) {
    if (h === undefined) continue;
    console.error(`headline ${h.n}: last position frame ${(h.until - h.at).toFixed(1)} ms after the post`);
    console.error('   asked  began  ended');
    for (const line of timeline(statements, h.at, h.until)) console.error(`  ${line}`);
  }
}
