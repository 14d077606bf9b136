import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { freePort, startServerProcess, waitForHealth } from '../tests/helpers/process';
import { onEachDatabase } from './lib/postgres';
import { report } from './lib/report';

/**
 * Webhook admission alone: one server (`ROLE=all`, local analyzer, no stream clients), 20 senders
 * posting distinct items as fast as they are answered for `BENCH_SECONDS` (10 by default). Prints items
 * admitted per second and the round trip p50/p99, on PGlite and, with `BENCH_DATABASE_URL`, on a fresh
 * PostgreSQL database (where admission holds the advisory lock every process shares).
 */
const SENDERS = 20;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const TOKEN = 'bench-ingest-token-0123456789';
const WORDS =
  'amber basil cedar delta ember fjord grove heron indigo juniper kestrel lumen maple nova onyx prism'.split(
    ' ',
  );

/** A distinct headline per call: no two are copies or near-copies of each other. */
function headline(n: number): string {
  const w = (i: number) => WORDS[(n >> (i * 4)) & 15] ?? 'quartz';
  return `Project ${w(0)}${w(1)} unlocks ${n} ${w(2).toUpperCase()}${n % 97} tokens for ${w(3)} holders`;
}

async function measure(label: string, databaseUrl?: string): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'sc-bench-ingest-'));
  const port = await freePort();
  const server = startServerProcess({
    PORT: String(port),
    DATA_DIR: dataDir,
    NEWS_SOURCES: 'webhook',
    INGEST_TOKEN: TOKEN,
    LOG_LEVEL: 'warn',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl, SECRETS_KEY: randomBytes(32).toString('hex') } : {}),
  });
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitForHealth(base);
    let n = 0;
    const run = await autocannon({
      url: `${base}/api/signals/ingest`,
      connections: SENDERS,
      duration: SECONDS,
      requests: [
        {
          method: 'POST',
          setupRequest: (req) => {
            n += 1;
            return {
              ...req,
              headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
              body: JSON.stringify({
                content: headline(n),
                source_name: 'Bench Desk',
                external_id: `${label}-${n}`,
              }),
            };
          },
        },
      ],
    });
    const bad = run.non2xx + run.errors;
    if (bad > 0) throw new Error(`${label}: ${bad} sends were not answered 202`);
    report('ingest', `${label}_items_per_s`, run.requests.average, 'items/s');
    report('ingest', `${label}_p50`, run.latency.p50, 'ms');
    report('ingest', `${label}_p99`, run.latency.p99, 'ms');
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await onEachDatabase('ingest', measure);
