import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';
import { SYMBOLS } from '../src/contracts/symbols';
import { ROOT, freePort, startServerProcess, waitForHealth } from '../tests/helpers/process';
import { report } from './lib/report';
import { CHROMIUM, CHROMIUM_ARGS } from '../tests/e2e/support/browser';

/**
 * The feed pane under a news burst, in chromium: RATE signals/s go in through the webhook for SECONDS
 * while one page shows them. Prints the main thread's long tasks (> 50 ms) during the burst, the p95
 * frame time (requestAnimationFrame deltas), the JS heap growth once the 50-card cap is reached
 * (after a GC at both ends), and the first-load JS of the built app (gzip). Target: no long task,
 * flat heap, first load ≤ 350 KB.
 */
const RATE = Number(process.env.BENCH_RATE ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
/** When the heap baseline is taken: well after the cap of 50 cards is reached. */
const WARM_SECONDS = 5;
const TOKEN = 'bench-feed-token';
const BENCH = 'feed';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Records long tasks, frame times and inserted cards while `__bench.running` is set. */
const PROBE = `
  window.__bench = { longTasks: [], frames: [], running: false };
  new PerformanceObserver((list) => {
    if (!window.__bench.running) return;
    for (const e of list.getEntries()) window.__bench.longTasks.push(e.duration);
  }).observe({ type: 'longtask', buffered: false });
  let last = 0;
  const frame = (t) => {
    if (window.__bench.running && last > 0) window.__bench.frames.push(t - last);
    last = t;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  window.__bench.inserted = 0;
  new MutationObserver((changes) => {
    if (!window.__bench.running) return;
    for (const c of changes)
      for (const n of c.addedNodes)
        if (n instanceof HTMLElement && n.dataset.testid === 'signal-card') window.__bench.inserted += 1;
  }).observe(document, { subtree: true, childList: true });
  window.__bench.start = () => { window.__bench.running = true; };
  window.__bench.stop = () => { window.__bench.running = false; };
`;

/** Where `vite build` puts the web app (the server bundle goes beside it, in dist/server). */
const WEB_DIST = path.join(ROOT, 'dist/web');

/** The gzip size of the JS the page loads at start: its module script and the module preloads. */
function firstLoadJsGzip(): { bytes: number; files: string[] } {
  const html = readFileSync(path.join(WEB_DIST, 'index.html'), 'utf8');
  const files = [
    ...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="modulepreload"[^>]*\shref)="([^"]+\.js)"/g),
  ]
    .map((m) => m[1] ?? '')
    .filter((f) => f !== '');
  const bytes = files.reduce((sum, f) => sum + gzipSync(readFileSync(path.join(WEB_DIST, f))).length, 0);
  return { bytes, files };
}

/** A distinct story per item, so none is dropped as a duplicate or clustered with another. */
function item(i: number) {
  const s = SYMBOLS[i % SYMBOLS.length] ?? SYMBOLS[0];
  const ticker = s?.ticker ?? 'BTC';
  const verbs = ['lists', 'delists', 'halts deposits of', 'launches perpetuals on', 'adds margin pairs for'];
  return {
    content: `Exchange ${i} ${verbs[i % verbs.length]} ${s?.name ?? 'Bitcoin'} (${ticker}), bench item ${i} ${Date.now()}`,
    source_name: 'Bench Wire',
    username: 'bench',
    url: `https://bench.example/${i}`,
    external_id: `bench-${i}`,
  };
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function main(): Promise<void> {
  if (!existsSync(path.join(WEB_DIST, 'index.html'))) {
    const built = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
    if (built.status !== 0) throw new Error('the build failed');
  }
  const firstLoad = firstLoadJsGzip();
  report(BENCH, 'first_load_js_gzip', firstLoad.bytes / 1024, 'KiB');

  const dataDir = await mkdtemp(path.join(tmpdir(), 'sc-bench-feed-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = startServerProcess({
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    NEWS_SOURCES: 'webhook',
    INGEST_TOKEN: TOKEN,
    MARKET_SIM_TICK_MS: '250',
  });
  // Launched inside the try: a missing browser must not leave the server running.
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
    });
    await waitForHealth(base);
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const cdp = await page.context().newCDPSession(page);
    const heap = async (): Promise<number> => {
      await cdp.send('HeapProfiler.collectGarbage');
      return (await cdp.send('Runtime.getHeapUsage')).usedSize;
    };
    await page.goto(base + '/');
    await page.getByTestId('live-indicator').filter({ hasText: 'Live' }).waitFor({ timeout: 20_000 });
    // Installed once the app is up (a long-task observer made before the document exists sees nothing).
    await page.evaluate(PROBE);

    let sent = 0;
    let failed = 0;
    const post = async (): Promise<void> => {
      const res = await fetch(`${base}/api/signals/ingest`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(item(sent++)),
      });
      if (res.status !== 202) failed += 1;
      await res.arrayBuffer();
    };
    const started = Date.now();
    const tick = setInterval(() => void post().catch(() => (failed += 1)), 1000 / RATE);
    let baseline = 0;
    try {
      await sleep(WARM_SECONDS * 1000);
      baseline = await heap();
      await page.evaluate('window.__bench.start()');
      await sleep((SECONDS - WARM_SECONDS) * 1000);
      await page.evaluate('window.__bench.stop()');
    } finally {
      clearInterval(tick);
    }
    await sleep(1000);
    const end = await heap();
    const probe = (await page.evaluate('window.__bench')) as {
      longTasks: number[];
      frames: number[];
      inserted: number;
    };
    // The probe itself: a deliberate 120 ms task must show up as a long task, else the count means nothing.
    const selfTest = (await page.evaluate(`new Promise((done) => {
      window.__bench.longTasks = [];
      window.__bench.start();
      setTimeout(() => {
        const until = performance.now() + 120;
        while (performance.now() < until);
      }, 0);
      setTimeout(() => { window.__bench.stop(); done(window.__bench.longTasks.length); }, 400);
    })`)) as number;
    const cards = await page.getByTestId('signal-card').count();
    const elapsed = (Date.now() - started) / 1000;

    report(BENCH, 'signals_sent', sent, 'signals');
    report(BENCH, 'rate', sent / elapsed, 'signals/s');
    report(BENCH, 'ingest_failures', failed, 'requests');
    report(BENCH, 'cards_on_screen', cards, 'cards');
    report(BENCH, 'cards_inserted_while_measured', probe.inserted, 'cards');
    report(BENCH, 'long_task_probe_works', selfTest > 0 ? 1 : 0, 'bool');
    report(BENCH, 'long_tasks', probe.longTasks.length, 'tasks');
    report(BENCH, 'longest_task', Math.max(0, ...probe.longTasks), 'ms');
    report(BENCH, 'frame_p50', percentile(probe.frames, 50), 'ms');
    report(BENCH, 'frame_p95', percentile(probe.frames, 95), 'ms');
    report(BENCH, 'heap_after_cap', baseline / 1048576, 'MiB');
    report(BENCH, 'heap_growth', (end - baseline) / 1048576, 'MiB');
  } finally {
    await browser?.close();
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

// Bounded: whatever happens, the bench ends within two minutes.
const guard = setTimeout(() => {
  process.stderr.write('feed bench: timed out\n');
  process.exit(1);
}, 120_000);
guard.unref();
await main();
