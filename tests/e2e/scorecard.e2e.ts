import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, pgliteDir } from '../../server/db/client';
import { signalScores } from '../../server/db/schema/scorecard';
import type { ScoreRow } from '../../server/modules/scorecard/scorecard.repo';
import { seriousViolations } from './support/axe';
import { ARTIFACTS, openPage, startE2e, type E2eEnv } from './support/browser';

type Sentiment = 'positive' | 'negative' | 'neutral';

/** Five signals of the last hour: their price at arrival, then 1, 5 and 30 minutes later. */
const SEEDS: [string, Sentiment, number, string, [number, number, number, number]][] = [
  ['Binance Announcements', 'positive', 88, 'BTC', [100, 101, 102, 103]],
  ['Binance Announcements', 'positive', 84, 'ETH', [10, 10.1, 10.2, 9.9]],
  ['Blockwire News', 'negative', 62, 'SOL', [50, 49.5, 50.5, 49]],
  ['Whale Tracker', 'neutral', 30, 'BTC', [100, 100.2, 99.7, 100.5]],
  ['Blockwire News', 'negative', 45, 'XRP', [2, 1.98, 1.96, 2.02]],
];

/**
 * A data folder whose database already holds the scorecard's prices, as the price taker would have
 * written them on simulated prices: the server then answers the scorecard from its own table.
 */
async function seededDataDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sc-e2e-scorecard-'));
  const database = await openDatabase({ kind: 'pglite', dataDir: pgliteDir(dir) });
  const arrived = Date.now() - 3_600_000;
  const rows = SEEDS.flatMap(([sourceName, sentiment, impact, asset, prices], i) =>
    prices.map((price, h): ScoreRow => {
      const horizonS = [0, 60, 300, 1800][h] ?? 0;
      const receivedAt = new Date(arrived + i * 60_000);
      const dueAt = new Date(receivedAt.getTime() + horizonS * 1000);
      return {
        signalId: i + 1,
        asset,
        horizonS,
        price,
        priceSource: 'sim',
        receivedAt,
        dueAt,
        takenAt: dueAt,
        source: 'replay',
        sourceName,
        sentiment,
        impact,
      };
    }),
  );
  await database.db.insert(signalScores).values(rows);
  await database.close();
  return dir;
}

/** A short description of the focused element: `terminal`, or its tag and name. */
const focused = (page: Page): Promise<string> =>
  page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return 'body';
    if (document.querySelector('[data-testid="terminal"]')?.contains(el)) return 'terminal';
    return `${el.tagName.toLowerCase()}:${(el.textContent ?? '').trim()}`;
  });

const focusInside = (dialog: Locator): Promise<boolean> =>
  dialog.evaluate((root) => root.contains(document.activeElement));

/** Page object: the terminal, the feed header's button, and the modal's parts. */
class ScorecardPage {
  constructor(readonly page: Page) {}
  dialog = () => this.page.getByRole('dialog', { name: 'Signal scorecard' });
  button = () => this.page.getByTestId('feed-pane').getByRole('button', { name: 'Scorecard' });
  terminal = () => this.page.locator('[data-testid="terminal"] .xterm-rows').innerText();
  summary = () => this.dialog().getByTestId('scorecard-summary').innerText();
  bars = (name: string) => this.dialog().getByRole('list', { name }).getByTestId('score-bar').allInnerTexts();

  async shot(name: string): Promise<void> {
    await this.page.screenshot({ path: path.join(ARTIFACTS, `scorecard-${name}.png`) });
  }
}

/** Bar texts without the layout's line breaks: `80+ 100% of 2`. */
const flat = (texts: string[]) => texts.map((t) => t.replace(/\s+/g, ' ').trim());

describe('the signal scorecard in the browser', () => {
  let env: E2eEnv;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await seededDataDir();
    env = await startE2e({ DATA_DIR: dataDir, MARKET_SOURCE: 'sim', NEWS_SOURCES: 'webhook' });
  }, 180_000);
  afterAll(async () => {
    await env?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('opens from the terminal with the keyboard, shows the figures on simulated prices, and Esc gives focus back', async () => {
    const { page, problems, offsite, context } = await openPage(env, { width: 1280, height: 800 });
    const sc = new ScorecardPage(page);
    await page.goto(env.baseUrl + '/');
    await page.waitForSelector('[data-testid="terminal"] .xterm');
    await expect.poll(() => focused(page)).toBe('terminal');
    await page.keyboard.type('scorecard');
    await page.keyboard.press('Enter');

    await expect.poll(() => sc.dialog().isVisible()).toBe(true);
    await expect.poll(() => focusInside(sc.dialog())).toBe(true);
    await expect.poll(() => sc.summary()).toContain('5 signals measured');
    expect(await sc.summary()).toContain('Last 7 days · 5 signals measured');
    expect(await sc.dialog().getByTestId('scorecard-prices').innerText()).toMatch(/^simulated prices$/i);
    // The 5-minute horizon: both strong calls went the right way, the 62 did not, the neutral has no rate.
    expect(flat(await sc.bars('Hit rate by impact band'))).toEqual([
      '80+ 100% of 2',
      '50-79 0% of 1',
      '<50 100% of 1',
    ]);
    expect(flat(await sc.bars('Hit rate by source'))).toEqual([
      'Binance Announcements 100% of 2',
      'Blockwire News 50% of 2',
      'Whale Tracker — of 0',
    ]);
    const rows = await sc.dialog().getByTestId('scorecard-sentiment').locator('tbody tr').allInnerTexts();
    expect(flat(rows)).toEqual([
      'positive 2 2 100% +2.00%',
      'negative 2 2 50% +0.50%',
      'neutral 1 1 — ±0.30%',
    ]);
    // The command printed the same scorecard in the terminal, ending with what simulated prices mean.
    await expect
      .poll(async () => (await sc.terminal()).replace(/\s+/g, ' '))
      .toContain('these hit rates are chance, not the news.');

    // Tab stays inside; the 30-minute horizon is one arrow key away.
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      expect(await focusInside(sc.dialog())).toBe(true);
    }
    await sc.dialog().getByRole('radio', { name: '5m' }).focus();
    await page.keyboard.press('ArrowRight');
    await expect
      .poll(() => sc.bars('Hit rate by impact band').then(flat))
      .toEqual(['80+ 50% of 2', '50-79 100% of 1', '<50 0% of 1']);
    expect(await seriousViolations(page, '[role="dialog"]')).toEqual([]);
    await sc.shot('keyboard-wide');

    await page.keyboard.press('Escape');
    await expect.poll(() => sc.dialog().count()).toBe(0);
    await expect.poll(() => focused(page)).toBe('terminal');
    expect(problems).toEqual([]);
    expect(offsite).toEqual([]);
    await context.close();
  });

  it('opens from the button in the signals pane header and gives focus back to it, wide and narrow', async () => {
    for (const [size, viewport] of [
      ['wide', { width: 1280, height: 800 }],
      ['narrow', { width: 390, height: 844 }],
    ] as const) {
      const { page, problems, offsite, context } = await openPage(env, viewport);
      const sc = new ScorecardPage(page);
      await page.goto(env.baseUrl + '/');
      // On a phone the feed is the pane shown first and the terminal waits behind the bottom bar.
      await page.waitForSelector('[data-testid="terminal"] .xterm', { state: 'attached' });
      await sc.button().click();
      await expect.poll(() => sc.dialog().isVisible()).toBe(true);
      await expect.poll(() => sc.summary()).toContain('5 signals measured');
      expect(flat(await sc.bars('Hit rate by impact band'))[0]).toBe('80+ 100% of 2');
      expect(await seriousViolations(page, '[role="dialog"]')).toEqual([]);
      await sc.shot(`click-${size}`);
      await page.keyboard.press('Escape');
      await expect.poll(() => sc.dialog().count()).toBe(0);
      await expect.poll(() => focused(page)).toBe('button:Scorecard');
      // Close works the same way.
      await sc.button().click();
      await sc.dialog().getByRole('button', { name: 'Close' }).click();
      await expect.poll(() => sc.dialog().count()).toBe(0);
      await expect.poll(() => focused(page)).toBe('button:Scorecard');
      expect(problems).toEqual([]);
      expect(offsite).toEqual([]);
      await context.close();
    }
  });
});
