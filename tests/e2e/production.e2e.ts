import { execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ROOT,
  freePort,
  runProcess,
  startServerProcess,
  waitForHealth,
  type ServerProcess,
} from '../helpers/process';
import { ARTIFACTS, CHROMIUM, CHROMIUM_ARGS } from './support/browser';

/**
 * A production install: the repository's files and the built dist/ copied to a fresh folder, then
 * `npm ci --omit=dev` there (offline, from the npm cache the development install filled: no request
 * leaves the machine). The server bundle must start and serve the app, and the command-line client must
 * run, with no development package (vite, tsx, react, the test tools) installed.
 */
let dir = '';
let dataDir = '';
let server: ServerProcess | null = null;
let baseUrl = '';

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'sc-prod-'));
  dataDir = await mkdtemp(path.join(tmpdir(), 'sc-prod-data-'));
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((f) => f !== '' && !f.startsWith('tests/'));
  for (const f of files) {
    await mkdir(path.dirname(path.join(dir, f)), { recursive: true });
    await cp(path.join(ROOT, f), path.join(dir, f)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err; // a file deleted but not yet committed
    });
  }
  await cp(path.join(ROOT, 'dist'), path.join(dir, 'dist'), { recursive: true });
  const install = await runProcess('npm', ['ci', '--omit=dev', '--offline', '--no-audit', '--no-fund'], {
    cwd: dir,
  });
  if (install.code !== 0) throw new Error(`npm ci --omit=dev failed:\n${install.stderr}`);
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  server = startServerProcess(
    { PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    { cwd: dir, bundle: true },
  );
  try {
    await waitForHealth(baseUrl, 120_000);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${server.output()}`, { cause: err });
  }
}, 240_000);

afterAll(async () => {
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
  await rm(dataDir, { recursive: true, force: true });
});

describe('production install (npm ci --omit=dev + dist/)', () => {
  it('installs no development package', async () => {
    const installed = new Set(await readdir(path.join(dir, 'node_modules')));
    for (const dev of [
      'vite',
      'tsx',
      'react',
      'react-dom',
      'vitest',
      'typescript-eslint',
      'playwright-core',
    ]) {
      expect(installed.has(dev), dev).toBe(false);
    }
    expect(installed.has('fastify')).toBe(true);
  });

  it('serves the app: the page loads, the feed fills and the terminal answers', async () => {
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(baseUrl);
      await page.getByTestId('feed-pane').getByTestId('signal-card').first().waitFor({ timeout: 30_000 });
      await page.locator('[data-testid="terminal"] .xterm').click();
      await page.keyboard.type('price btc');
      await page.keyboard.press('Enter');
      await expect
        .poll(() => page.getByTestId('terminal-log').innerText(), { timeout: 10_000 })
        .toMatch(/BTC/);
      await mkdir(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: path.join(ARTIFACTS, 'production-install.png') });
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it('runs the command-line client from its bundle', async () => {
    const help = await runProcess(process.execPath, ['bin/signal-console.mjs', '--help'], { cwd: dir });
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain('Usage: signal-console');
    const price = await runProcess(
      process.execPath,
      ['bin/signal-console.mjs', '--server', baseUrl, 'price', 'btc'],
      {
        cwd: dir,
        env: { HOME: dir },
      },
    );
    expect(price.code, price.stderr).toBe(0);
    expect(price.stdout).toMatch(/BTC/);
  });
});
