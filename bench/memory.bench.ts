import { existsSync } from 'node:fs';
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT, freePort, startServerProcess, waitForHealth } from '../tests/helpers/process';
import { report } from './lib/report';

/**
 * Resident memory of the server as `npm start` runs it (the bundle in dist/server; run `npm run build`
 * first), on the embedded database: a first start that creates the database folder, then a restart on
 * the same folder. Read from /proc 20 s after the server answers, with replay news and simulated prices
 * flowing.
 */
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 20_000);
if (!existsSync(path.join(ROOT, 'dist/server/main.mjs'))) throw new Error('run `npm run build` first');

async function rssAfterStart(dataDir: string): Promise<number> {
  const port = await freePort();
  const server = startServerProcess(
    { PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    { bundle: true },
  );
  try {
    await waitForHealth(`http://127.0.0.1:${port}`, 120_000);
    await sleep(SETTLE_MS);
    const status = await readFile(`/proc/${server.child.pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
  } finally {
    await server.stop();
  }
}

const dataDir = await mkdtemp(path.join(tmpdir(), 'sc-bench-mem-'));
try {
  report('memory', 'pglite_first_start_rss', await rssAfterStart(dataDir), 'MiB');
  report('memory', 'pglite_restart_rss', await rssAfterStart(dataDir), 'MiB');
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
