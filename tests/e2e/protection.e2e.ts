import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, openPage, startE2e, type E2eEnv } from './support/browser';
import { signUpAndLogInThroughUi } from './support/session';

/** Where the screenshots go (`SHOTS_DIR`, or the artifacts folder). */
const SHOTS = process.env.SHOTS_DIR ?? ARTIFACTS;

/** Page object for a position's protection: the command line, and the Open Positions pane's column. */
class ProtectionPage {
  constructor(private readonly page: Page) {}

  async typeInTerminal(text: string): Promise<void> {
    await this.page.locator('[data-testid="terminal"] .xterm').click();
    await this.page.keyboard.type(text);
  }

  log = () => this.page.getByTestId('terminal-log').innerText();
  preview = () => this.page.getByTestId('order-preview').innerText();
  row = (symbol: string): Locator =>
    this.page.locator(`[data-testid="position-row"][data-symbol="${symbol}"]`);
  /** The legs of a row as text: `SL 98,669.4380 exchange resting`. */
  legs = (symbol: string) => this.row(symbol).getByTestId('protection-leg').allTextContents();
  unprotected = (symbol: string) => this.row(symbol).getByTestId('unprotected').count();

  async shot(name: string, target?: Locator): Promise<void> {
    const file = path.join(SHOTS, `protection-${name}.png`);
    await (target ?? this.page).screenshot({ path: file });
  }
}

const LEG = String.raw`[\d,.]+ exchange resting`;

describe('protecting a position in the browser', () => {
  let env: E2eEnv;
  beforeAll(async () => {
    await mkdir(SHOTS, { recursive: true });
    env = await startE2e({ MARKET_SOURCE: 'sim', MARKET_SIM_TICK_MS: '250' });
  });
  afterAll(async () => {
    await env?.close();
  });

  it('types btc long 500 sl 2% tp 5%, sees the legs rest on the paper exchange, edits them from the row, and protect btc off leaves it unprotected', async () => {
    const { page, problems, offsite, context } = await openPage(env);
    const ui = new ProtectionPage(page);
    await page.goto(env.baseUrl + '/');
    await page.waitForSelector('[data-testid="terminal"] .xterm');
    await signUpAndLogInThroughUi(page, 'sam@example.com', 'sam', 'protect pass 1');
    await expect.poll(() => page.getByTestId('positions').innerText()).toContain('No open positions.');

    // Before Enter: the stop's and target's prices, the money at each, and where they will rest.
    await ui.typeInTerminal('btc long 500 sl 2% tp 5%');
    await expect
      .poll(() => ui.preview())
      .toMatch(
        /^⏎?\s*LONG [\d.]+ BTC ≈ [\d,.]+ USDT of BTC\/USDT at [\d,.]+ · .* · SL [\d,.]+ \(-[\d.]+ USDT\) on the paper exchange · TP [\d,.]+ \(\+[\d.]+ USDT\) on the paper exchange/,
      );
    await ui.shot('preview', page.locator('#terminal'));
    await page.keyboard.press('Enter');

    // After: what the server answered of each leg.
    await expect.poll(() => ui.log()).toMatch(/Success! Order ID: [0-9a-f-]{36}/);
    await expect.poll(() => ui.log()).toMatch(/Stop loss [\d,.]+: resting on the paper exchange\./);
    expect(await ui.log()).toMatch(/Take profit [\d,.]+: resting on the paper exchange\./);
    expect(await ui.log()).toMatch(/Unprotected for \d+ ms\./);

    // The pane shows both legs resting on the paper exchange.
    await expect.poll(() => ui.row('BTC/USDT').count()).toBe(1);
    await expect
      .poll(() => ui.legs('BTC/USDT'))
      .toEqual([
        expect.stringMatching(new RegExp(`^SL ${LEG}$`)),
        expect.stringMatching(new RegExp(`^TP ${LEG}$`)),
      ]);
    const badge = ui.row('BTC/USDT').getByTestId('protection-leg').first().locator('.protection-place');
    expect(await badge.getAttribute('title')).toBe('Rests on the paper exchange');
    expect(await ui.unprotected('BTC/USDT')).toBe(0);
    const entry = Number((await ui.row('BTC/USDT').locator('td').nth(3).innerText()).replace(/,/g, ''));
    const [sl, tp] = (await ui.legs('BTC/USDT')).map((leg) => Number(leg.split(' ')[1]?.replace(/,/g, '')));
    // Two and five per cent from the fill, rounded to the symbol's tick.
    expect(sl).toBeCloseTo(entry * 0.98, -1);
    expect(tp).toBeCloseTo(entry * 1.05, -1);
    await ui.shot('pane', page.getByTestId('positions'));
    await ui.shot('page');

    // Edit from the row: the form holds the legs; add a trailing stop and a time exit.
    await ui.row('BTC/USDT').getByRole('button', { name: 'Edit protection of BTC/USDT' }).click();
    const form = page.getByRole('form', { name: 'Protection of BTC/USDT' });
    expect(Number(await form.getByLabel('Stop loss').inputValue())).toBeCloseTo(sl ?? 0, 4);
    // A stop above a long's price: the server's refusal, as written, and the form stays open.
    await form.getByLabel('Stop loss').fill(String(Math.round(entry * 1.1)));
    await form.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(() => form.getByRole('alert').innerText())
      .toMatch(/^A long's stop loss must be below the price/);
    await form.getByLabel('Stop loss').fill('2%');
    await form.getByLabel('Trailing %').fill('1');
    await form.getByLabel('Exit after').fill('30');
    await ui.shot('form', page.getByTestId('positions'));
    await form.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => form.count()).toBe(0);
    await expect
      .poll(() => ui.legs('BTC/USDT'))
      .toEqual([
        expect.stringMatching(new RegExp(`^SL ${LEG}$`)),
        expect.stringMatching(new RegExp(`^TP ${LEG}$`)),
        expect.stringMatching(/^Trail 1% exchange resting$/),
        expect.stringMatching(/^Exit in (29|30)m app$/),
      ]);
    await ui.shot('edited', page.getByTestId('positions'));

    // On a phone (390 px) the row is a card and its legs wrap within the width.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('tablist', { name: 'Panes' }).getByRole('tab', { name: 'Positions' }).click();
    await expect.poll(() => ui.row('BTC/USDT').getByTestId('protection').isVisible()).toBe(true);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await ui.shot('phone');
    await page.setViewportSize({ width: 1440, height: 900 });

    // `protect btc off` removes every leg: the row says unprotected.
    await ui.typeInTerminal('protect btc off\n');
    await expect.poll(() => ui.log()).toMatch(/BTC\/USDT is no longer protected/);
    await expect.poll(() => ui.unprotected('BTC/USDT')).toBe(1);
    expect(await ui.legs('BTC/USDT')).toEqual([]);
    await ui.shot('unprotected', page.getByTestId('positions'));
    await ui.shot('terminal', page.locator('#terminal'));

    // The one refusal asked for above: the console notes its 422, and nothing else went wrong.
    const refused = (p: string) =>
      p.includes('status of 422') && p.includes('/api/positions/BTCUSDT/protection');
    expect(problems.filter((p) => refused(p))).toHaveLength(1);
    expect(problems.filter((p) => !refused(p))).toEqual([]);
    expect(offsite).toEqual([]);
    await context.close();
  }, 120_000);
});
