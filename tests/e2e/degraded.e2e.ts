import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Health } from '../../src/contracts/health';
import { ARTIFACTS, openPage, startE2e, type E2eEnv } from './support/browser';

/** What a server with a stalled market feed and a silent LLM answers (200: it still serves). */
const DEGRADED: Health = {
  status: 'degraded',
  degraded: ['market feed stalled', 'AI analyzer not answering: local fallback'],
  db: 'pglite',
  dbOk: true,
  bus: 'memory',
  busOk: true,
  market: 'binance',
  news: ['replay'],
  exchange: 'paper',
  analyzer: 'llm',
  payments: ['sandbox-card', 'sandbox-crypto'],
  mail: 'outbox',
  standins: [
    'embedded database (PGlite)',
    'replayed news',
    'paper exchange',
    'sandbox payments',
    'mail to outbox',
  ],
  version: 'e2e',
  uptimeSeconds: 60,
  role: 'all',
  leases: ['market-feed', 'news-sources'],
};

describe('the header names what the server reports degraded', () => {
  let env: E2eEnv;
  beforeAll(async () => {
    env = await startE2e();
  }, 180_000);
  afterAll(async () => {
    await env?.close();
  });

  it.each([
    [1280, 720],
    [390, 844],
  ])(
    'at %i×%i: a red chip in the header, the full list in its title, nothing pushed out',
    async (width, height) => {
      const { page, problems, offsite, context } = await openPage(env, { width, height });
      await page.route('**/api/healthz', (route) =>
        route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(DEGRADED) }),
      );
      await page.goto(env.baseUrl + '/');
      const chip = page.getByTestId('degraded-badge');
      await chip.waitFor({ timeout: 20_000 });
      expect(await chip.textContent()).toBe('DEGRADED: market feed stalled +1');
      expect(await chip.getAttribute('title')).toBe(
        'Degraded: market feed stalled; AI analyzer not answering: local fallback.',
      );
      const color = await chip.evaluate((el) => getComputedStyle(el).color);
      const [r = 0, g = 0, b = 0] = (color.match(/\d+/g) ?? []).map(Number);
      expect(r, `chip colour ${color}`).toBeGreaterThan(Math.max(g, b) + 60);
      const box = await chip.boundingBox();
      const header = await page.locator('header.header').boundingBox();
      expect(box).not.toBeNull();
      expect(header).not.toBeNull();
      if (box === null || header === null) return;
      expect(box.x).toBeGreaterThanOrEqual(header.x);
      expect(box.x + box.width).toBeLessThanOrEqual(Math.min(width, header.x + header.width) + 1);
      expect(box.y + box.height).toBeLessThanOrEqual(header.y + header.height + 1);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width + 1);
      await page.screenshot({ path: path.join(ARTIFACTS, `degraded-${width}x${height}.png`) });
      expect(problems).toEqual([]);
      expect(offsite).toEqual([]);
      await context.close();
    },
  );
});
