import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCORECARD_TEXTS } from '../../src/contracts/scorecard';
import { openDatabase, pgliteDir } from '../../server/db/client';
import { signalScores } from '../../server/db/schema/scorecard';
import type { ScoreRow } from '../../server/modules/scorecard/scorecard.repo';
import { openPage, startE2e, type E2eEnv } from './support/browser';
import { signUpAndLogInThroughUi } from './support/session';

const SHOTS = process.env.SHOTS_DIR ?? '/tmp/shots';
const WIDTHS = [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

/** A data folder whose scorecard holds two signals measured on simulated prices, an hour ago. */
async function seededDataDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sc-e2e-defaults-'));
  const database = await openDatabase({ kind: 'pglite', dataDir: pgliteDir(dir) });
  const arrived = Date.now() - 3_600_000;
  const seeds: [string, number, [number, number, number, number]][] = [
    ['BTC', 1, [100, 101, 102, 103]],
    ['ETH', 2, [10, 9.9, 10.1, 10.2]],
  ];
  const rows = seeds.flatMap(([asset, id, prices]) =>
    prices.map((price, h): ScoreRow => {
      const horizonS = [0, 60, 300, 1800][h] ?? 0;
      const receivedAt = new Date(arrived + id * 60_000);
      const dueAt = new Date(receivedAt.getTime() + horizonS * 1000);
      return {
        signalId: id,
        asset,
        horizonS,
        price,
        priceSource: 'sim',
        receivedAt,
        dueAt,
        takenAt: dueAt,
        source: 'replay',
        sourceName: 'Wire',
        sentiment: 'positive',
        impact: 80,
      };
    }),
  );
  await database.db.insert(signalScores).values(rows);
  await database.close();
  return dir;
}

describe('defaults that fit the account, and figures that say when they are chance', () => {
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

  it("shows where the default max order comes from, and the scorecard's chance note, at both widths", async () => {
    const { page, problems, offsite, context } = await openPage(env, WIDTHS[0]);
    await page.goto(env.baseUrl + '/');
    await signUpAndLogInThroughUi(page, 'dana@example.com', 'dana', 'fitting pass 1');
    /** Screenshots at each width, the element within the screen's width at each. */
    const atBothWidths = async (name: string, shown: Locator) => {
      for (const size of WIDTHS) {
        await page.setViewportSize(size);
        await shown.scrollIntoViewIfNeeded();
        await expect.poll(() => shown.isVisible()).toBe(true);
        const box = await shown.boundingBox();
        expect(
          box !== null && box.x >= 0 && box.x + box.width <= size.width,
          `${name} at ${size.width}`,
        ).toBe(true);
        await page.screenshot({ path: path.join(SHOTS, `rulesdef-${name}-${size.width}.png`) });
      }
      await page.setViewportSize(WIDTHS[0]);
    };

    await page.locator('header.header').getByRole('button', { name: 'Trade Rules' }).click();
    const modal = page.getByRole('dialog', { name: 'Trade Rules & Settings' });
    const basis = modal.getByTestId('max-order-basis');
    await expect
      .poll(() => basis.innerText())
      .toBe('Max order 50,000 USDT: 5 × your 10,000 paper balance (the default; set your own below).');
    const risk = modal.getByRole('region', { name: 'Risk settings' });
    expect(await risk.getByLabel('Max order (USDT, every order)').inputValue()).toBe('50000');
    expect(await risk.innerText()).toContain('Max positions opened by rules');
    await atBothWidths('risk', basis);
    await page.keyboard.press('Escape');
    await expect.poll(() => modal.count()).toBe(0);

    await page.getByTestId('feed-pane').getByRole('button', { name: 'Scorecard' }).click();
    const note = page.getByRole('dialog', { name: 'Signal scorecard' }).getByTestId('scorecard-note');
    await expect.poll(() => note.innerText()).toBe(SCORECARD_TEXTS.simulated);
    await atBothWidths('scorecard', note);
    expect(problems).toEqual([]);
    expect(offsite).toEqual([]);
    await context.close();
  });
});
