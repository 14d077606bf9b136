import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ROOT, freePort, startServerProcess, waitForHealth, type ServerProcess } from '../../helpers/process';
import { bodyText, recordAnswer, recordRequestSecrets, scanDir } from '../../secrets/record';

export const ARTIFACTS = path.join(ROOT, 'tests/e2e/artifacts');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Flags that keep chromium from reaching for the network on this closed machine. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface E2eEnv {
  baseUrl: string;
  server: ServerProcess;
  browser: Browser;
  close(): Promise<void>;
}

/** Starts the built server (dist/server) on a free port with a fresh DATA_DIR, and a headless chromium. */
export async function startE2e(env: Record<string, string> = {}): Promise<E2eEnv> {
  if (
    !existsSync(path.join(ROOT, 'dist/web/index.html')) ||
    !existsSync(path.join(ROOT, 'dist/server/main.mjs'))
  ) {
    throw new Error('dist/ is missing: run `npm run build` first (npm run test:e2e does).');
  }
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  await mkdir(ARTIFACTS, { recursive: true });
  const dataDir = await mkdtemp(path.join(tmpdir(), 'sc-e2e-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  // The built server, as `npm start` runs it (and without compiling the sources at every start).
  const server = startServerProcess(
    { PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env },
    { bundle: true },
  );
  // Chromium starts while the server does. Playwright gives every launch a fresh, empty profile folder.
  const launching = chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  try {
    // A busy machine can take most of a minute to start the server.
    await waitForHealth(baseUrl, 150_000);
  } catch (err) {
    await server.stop();
    await launching.then((b) => b.close()).catch(() => undefined);
    throw new Error(`${(err as Error).message}\n${server.output()}`, { cause: err });
  }
  let browser: Browser;
  try {
    browser = await launching;
  } catch (err) {
    await server.stop();
    throw err;
  }
  return {
    baseUrl,
    server,
    browser,
    async close() {
      await browser.close();
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A page that records console errors, failed requests and requests that left loopback. */
export async function openPage(
  env: E2eEnv,
  viewport = { width: 1440, height: 900 },
): Promise<{ context: BrowserContext; page: Page; problems: string[]; offsite: string[] }> {
  const context = await env.browser.newContext({ viewport });
  const page = await context.newPage();
  const problems: string[] = [];
  const offsite: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    // A failed resource names its address in the message's location, not in its text.
    const at = msg.text().startsWith('Failed to load resource') ? ` (${msg.location().url})` : '';
    problems.push(`console: ${msg.text()}${at}`);
  });
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  page.on('request', (req) => {
    const url = new URL(req.url());
    if (
      !['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname) &&
      !['data:', 'blob:'].includes(url.protocol)
    ) {
      offsite.push(req.url());
    }
  });
  if (scanDir() !== undefined) recordPage(page, env.baseUrl);
  return { context, page, problems, offsite };
}

/** For the secrets scan: what the page sends to the server's API, and every answer it gets back. */
function recordPage(page: Page, baseUrl: string): void {
  const api = `${baseUrl}/api/`;
  page.on('request', (req) => {
    if (req.url().startsWith(api)) recordRequestSecrets(new URL(req.url()).pathname, req.postData() ?? '');
  });
  page.on('response', (res) => {
    if (!res.url().startsWith(api)) return;
    void (async () => {
      const headers = await res.allHeaders();
      if ((headers['content-type'] ?? '').includes('text/event-stream')) return;
      const body = await res.body().catch(() => Buffer.alloc(0));
      const cookies = (await res.headersArray())
        .filter((h) => h.name.toLowerCase() === 'set-cookie')
        .map((h) => h.value);
      delete headers['set-cookie'];
      recordAnswer({
        source: 'browser',
        method: res.request().method(),
        url: new URL(res.url()).pathname,
        status: res.status(),
        headers: cookies.length > 0 ? { ...headers, 'set-cookie': cookies } : headers,
        body: bodyText(body),
      });
    })().catch(() => undefined);
  });
}
