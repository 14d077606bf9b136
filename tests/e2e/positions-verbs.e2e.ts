import { mkdir } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPage, startE2e, type E2eEnv } from './support/browser';
import { answerDialog, recordNativeDialogs } from './support/dialogs';
import { signUpAndLogInThroughUi } from './support/session';

const SHOTS = '/tmp/shots';

/** Page object for the position verbs: the command line, the position rows, the Closed tab. */
class PositionsPage {
  constructor(private readonly page: Page) {}

  async type(line: string): Promise<void> {
    await this.page.locator('[data-testid="terminal"] .xterm').click();
    await this.page.keyboard.type(line);
    await this.page.keyboard.press('Enter');
  }

  log = () => this.page.getByTestId('terminal-log').innerText();
  row = (symbol: string) => this.page.locator(`[data-testid="position-row"][data-symbol="${symbol}"]`);
  cells = (symbol: string) => this.row(symbol).locator('td').allInnerTexts();
  size = async (symbol: string) => Number((await this.cells(symbol))[2]?.replaceAll(',', ''));
  tab = (name: string) => this.page.getByRole('tab', { name: new RegExp(`^${name}(?!s)`) });
  shot = (name: string) => this.page.screenshot({ path: `${SHOTS}/positions-${name}.png` });
}

describe('position verbs in the browser', () => {
  let env: E2eEnv;
  beforeAll(async () => {
    await mkdir(SHOTS, { recursive: true });
    env = await startE2e({ MARKET_SOURCE: 'sim', MARKET_SIM_TICK_MS: '250' });
  });
  afterAll(async () => {
    await env?.close();
  });

  it('shows prices at their tick, closes half, asks before a key verb, and lists a flip as what it closed', async () => {
    const { page, problems, offsite, context } = await openPage(env);
    const ui = new PositionsPage(page);
    const native = recordNativeDialogs(page);
    await page.goto(env.baseUrl + '/');
    await page.waitForSelector('[data-testid="terminal"] .xterm');
    await signUpAndLogInThroughUi(page, 'vera@example.com', 'vera', 'verbs pass 1');

    // BTC's prices read at its 0.1 tick, ZIL's at its 0.00001 tick: never cut to 4 decimals.
    await ui.type('btc long 5k');
    await expect.poll(() => ui.row('BTC/USDT').count()).toBe(1);
    const btc = await ui.cells('BTC/USDT');
    for (const price of btc.slice(3, 6)) expect(price).toMatch(/^\d{1,3}(,\d{3})*\.\d$/);
    await ui.type('zil long 200');
    await expect.poll(() => ui.row('ZIL/USDT').count()).toBe(1);
    const zil = await ui.cells('ZIL/USDT');
    expect(zil[3]).toMatch(/^0\.0\d{4}$/);
    expect(zil[4]).toMatch(/^0\.0\d{4}$/);
    expect(await ui.log()).toMatch(/of ZIL\/USDT at 0\.0\d{4}, fee/);
    await ui.shot('ticks-1440');

    // close btc 50%: one reduce-only order of half, on BTC's 0.001 step.
    const before = await ui.size('BTC/USDT');
    await ui.type('close btc 50%');
    await expect
      .poll(() => ui.log())
      .toMatch(/Closed LONG [\d.]+ BTC ≈ [\d,.]+ USDT of BTC\/USDT at [\d,]+\.\d,/);
    await expect
      .poll(() => ui.size('BTC/USDT'))
      .toBeCloseTo(before - Math.floor((before / 2) * 1000) / 1000, 8);
    const half = await ui.size('BTC/USDT');

    // h on a focused row asks in the app's dialog, naming the position; Esc (No) sends nothing.
    await ui.row('ZIL/USDT').focus();
    await page.keyboard.press('h');
    const asked = await answerDialog(page, false);
    expect(asked.message).toMatch(/^Close 50% of LONG [\d,.]+ ZIL\/USDT\? Enter \/ Esc$/);
    expect(await ui.row('ZIL/USDT').count()).toBe(1);
    // f flips it: closed first, then the short opened.
    await ui.row('ZIL/USDT').focus();
    await page.keyboard.press('f');
    const flipped = await answerDialog(page, true);
    expect(flipped.message).toMatch(/^Flip LONG [\d,.]+ ZIL\/USDT to SHORT [\d,.]+\? Enter \/ Esc$/);
    await expect.poll(async () => (await ui.cells('ZIL/USDT'))[1]).toBe('SHORT');

    // A short of twice the long flips it in one fill: the Closed tab shows the long's size, not the fill's.
    await ui.type('btc short 10k');
    await expect.poll(async () => (await ui.cells('BTC/USDT').catch(() => []))[1]).toBe('SHORT');
    await ui.tab('Closed').click();
    const closed = page.getByTestId('closed-row');
    // The Closed tab reads the history when it opens; on a loaded machine the flip's close can be stored
    // a moment after the socket shows the short, so the tab is opened again until it is there.
    await expect
      .poll(async () => {
        if ((await closed.count()) < 3) {
          await ui.tab('Positions').click();
          await ui.tab('Closed').click();
        }
        return closed.count();
      })
      .toBe(3);
    const rows = await closed.evaluateAll((rs) =>
      rs.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent ?? '')),
    );
    const [flip, zilClose, halfClose] = rows;
    expect(flip?.slice(1, 4)).toEqual(['BTC/USDT', 'LONG', String(half)]);
    expect(flip?.[4]).toMatch(/^\d{1,3}(,\d{3})*\.\d$/);
    expect(flip?.[8]).toBe('manual');
    expect(zilClose?.slice(1, 3)).toEqual(['ZIL/USDT', 'LONG']);
    expect(zilClose?.[5]).toMatch(/^0\.0\d{4}$/);
    expect(Number(halfClose?.[3])).toBeCloseTo(before - half, 8);
    await ui.shot('closed-1440');

    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('tablist', { name: 'Panes' }).getByRole('tab', { name: 'Positions' }).click();
    await ui.tab('Closed').click();
    await expect.poll(() => closed.first().isVisible()).toBe(true);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await ui.shot('closed-390');
    await page
      .getByRole('tablist', { name: 'Bottom panel' })
      .getByRole('tab', { name: /^Positions/ })
      .click();
    await expect.poll(() => ui.row('BTC/USDT').isVisible()).toBe(true);
    await ui.shot('rows-390');

    expect(native).toEqual([]);
    expect(problems).toEqual([]);
    expect(offsite).toEqual([]);
    await context.close();
  });
});
