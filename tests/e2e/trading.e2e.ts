import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, openPage, startE2e, type E2eEnv } from './support/browser';
import { answerDialog, recordNativeDialogs } from './support/dialogs';
import { signUpAndLogInThroughUi } from './support/session';

/** Page object for paper trading: the command line, the Open Positions pane and the trade panel. */
class TradingPage {
  constructor(private readonly page: Page) {}

  signUpAndLogIn(email: string, username: string, password: string): Promise<void> {
    return signUpAndLogInThroughUi(this.page, email, username, password);
  }

  async typeInTerminal(text: string): Promise<void> {
    await this.page.locator('[data-testid="terminal"] .xterm').click();
    await this.page.keyboard.type(text);
  }

  log = () => this.page.getByTestId('terminal-log').innerText();
  preview = () => this.page.getByTestId('order-preview').innerText();
  positions = () => this.page.getByTestId('positions');
  row = (symbol: string) => this.page.locator(`[data-testid="position-row"][data-symbol="${symbol}"]`);
  mark = (symbol: string) => this.row(symbol).getByTestId('mark-price').innerText();
  live = () => this.page.getByTestId('positions-live').innerText();
  tab = (name: string) => this.page.getByRole('tab', { name: new RegExp(`^${name}(?!s)`) });
}

describe('paper trading in the browser', () => {
  let env: E2eEnv;
  beforeAll(async () => {
    env = await startE2e({ MARKET_SOURCE: 'sim', MARKET_SIM_TICK_MS: '250' });
  });
  afterAll(async () => {
    await env?.close();
  });

  it('types btc long 5k, watches the position live, closes it from the pane, and trades from the panel', async () => {
    const { page, problems, offsite, context } = await openPage(env);
    const ui = new TradingPage(page);
    await page.goto(env.baseUrl + '/');
    await page.waitForSelector('[data-testid="terminal"] .xterm');
    await expect.poll(() => ui.positions().innerText()).toBe('Please log in to view positions.');
    await ui.signUpAndLogIn('pat@example.com', 'pat', 'paper pass 1');
    await expect.poll(() => ui.positions().innerText()).toContain('No open positions.');
    await expect.poll(() => ui.live()).toBe('Live');

    // The preview says what Enter will do before the order is sent.
    await ui.typeInTerminal('btc long 5k');
    await expect
      .poll(() => ui.preview())
      .toMatch(
        /LONG [\d.]+ BTC ≈ [\d,.]+ USDT of BTC\/USDT at [\d,.]+ · margin [\d,.]+ · liq\. [\d,.]+ · fee [\d.]+ · 10x · min\. 100 USDT/,
      );
    const rows = await page.locator('[data-testid="terminal"] .xterm-rows').innerText();
    expect(rows).toContain('pat@BTC/USDT paper › btc long 5k');
    await page.screenshot({ path: path.join(ARTIFACTS, 'trading-preview.png') });
    await page.keyboard.press('Enter');
    await expect.poll(() => ui.log()).toMatch(/Success! Order ID: [0-9a-f-]{36}/);
    expect(await ui.log()).toMatch(
      /Filled LONG [\d.]+ BTC ≈ [\d,.]+ USDT of BTC\/USDT at [\d,.]+, fee [\d.]+ USDT\./,
    );

    // The row arrives, and its mark price moves with the market while the socket is live.
    await expect.poll(() => ui.row('BTC/USDT').count()).toBe(1);
    const cells = await ui.row('BTC/USDT').locator('td').allInnerTexts();
    expect(cells.slice(0, 2)).toEqual(['BTC/USDT', 'LONG']);
    for (const cell of cells.slice(2, 7)) expect(cell).toMatch(/^[\d,.]+$/);
    const firstMark = await ui.mark('BTC/USDT');
    await expect.poll(() => ui.mark('BTC/USDT'), { timeout: 15_000 }).not.toBe(firstMark);
    expect(await ui.live()).toBe('Live');
    expect(await page.getByTestId('positions-updated').innerText()).toMatch(/^Updated \d+s ago$/);
    expect(await ui.positions().getByTestId('account-badge').innerText()).toBe('PAPER');
    await page.screenshot({ path: path.join(ARTIFACTS, 'trading-position.png') });

    // Close it from the pane, accepting the app's own confirmation, which names the position and its PnL.
    const native = recordNativeDialogs(page);
    await ui.row('BTC/USDT').getByRole('button', { name: 'Close' }).click();
    const asked = await answerDialog(page, true);
    await expect.poll(() => ui.row('BTC/USDT').count()).toBe(0);
    expect(asked.message).toBe('Are you sure you want to close the BTC/USDT position?');
    expect(asked.details[0]).toMatch(/^LONG [\d.]+ BTC\/USDT, entry [\d,.]+$/);
    expect(asked.details[1]).toMatch(/^Unrealized PnL [+-]?[\d,.]+ USDT \([+-]?[\d.]+%\), at market$/);
    expect(native).toEqual([]);
    await expect.poll(() => ui.positions().innerText()).toContain('No open positions.');
    // The close is written down in the terminal with what the server says it filled: PnL and fee.
    await expect
      .poll(() => ui.log())
      .toMatch(
        /Closed LONG [\d.]+ BTC ≈ [\d,.]+ USDT of BTC\/USDT at [\d,.]+, realised [+-]?[\d,.]+ USDT, fee [\d.]+ USDT\.\nPaper exchange: no real funds\./,
      );

    // The trade panel places an order through the same path.
    await ui.tab('Trade').click();
    const panel = page.getByTestId('trade-panel');
    expect(await panel.getByTestId('account-badge').innerText()).toBe('PAPER');
    await panel.getByLabel('Total (USDT)').fill('250');
    await panel.getByRole('button', { name: 'Sell / Short' }).click();
    await expect
      .poll(() => page.getByTestId('trade-status').innerText())
      .toMatch(/^Success! Order ID: [0-9a-f-]{36}\. Filled SHORT [\d.]+ BTC ≈ [\d,.]+ USDT of BTC\/USDT/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'trading-panel.png') });
    await ui.tab('Positions').click();
    await expect.poll(() => ui.row('BTC/USDT').locator('td').nth(1).innerText()).toBe('SHORT');
    await page.screenshot({ path: path.join(ARTIFACTS, 'trading-short.png') });

    // Every fill is in the Trades tab, newest first: the panel's short, the close, the opening long.
    await ui.tab('Trades').click();
    const trades = page.getByTestId('trade-row');
    await expect.poll(() => trades.count()).toBe(3);
    const sides = await trades.evaluateAll((rs) => rs.map((r) => r.querySelectorAll('td')[2]?.textContent));
    expect(sides).toEqual(['SELL', 'SELL', 'BUY']);
    const closing = await trades.nth(1).locator('td').allInnerTexts();
    expect(closing[1]).toBe('BTC/USDT');
    expect(closing[5]).toMatch(/^[+-]?[\d,.]+$/);
    expect(closing.slice(7)).toEqual(['PAPER', 'manual']);
    await page.screenshot({ path: path.join(ARTIFACTS, 'trading-trades.png') });

    // A long against the short says it reduced it, with the realised PnL.
    await ui.typeInTerminal('btc long 100\n');
    await expect
      .poll(ui.log)
      .toMatch(
        /Reduced your BTC short from 0\.002 to 0\.001 BTC: LONG 0\.001 BTC ≈ [\d,.]+ USDT at [\d,.]+, realised [+-]?\d+\.\d\d USDT, fee [\d.]+ USDT\./,
      );
    await page.screenshot({ path: path.join(ARTIFACTS, 'trading-reduced-1440.png') });

    // The Closed tab lists the fills that closed or reduced a position, under the position's side.
    await ui.tab('Closed').click();
    const closedRows = page.getByTestId('closed-row');
    await expect.poll(() => closedRows.count()).toBe(2);
    const positionSides = await closedRows.evaluateAll((rs) =>
      rs.map((r) => r.querySelectorAll('td')[2]?.textContent),
    );
    expect(positionSides).toEqual(['SHORT', 'LONG']);
    await page.screenshot({ path: path.join(ARTIFACTS, 'trading-closed-1440.png') });

    // Download CSV saves every fill, newest first.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('closed-positions').getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('trades.csv');
    const csv = await readFile((await download.path())!, 'utf8');
    const csvRows = csv.trimEnd().split('\r\n');
    expect(csvRows[0]).toMatch(/^time,symbol,side,quantity,price,realized_pnl,fee,source/);
    expect(csvRows.slice(1).map((r) => r.split(',')[2])).toEqual(['buy', 'sell', 'sell', 'buy']);

    // On a phone (390 px) the Closed tab is one tap away in the Positions pane, and fits the width.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('tablist', { name: 'Panes' }).getByRole('tab', { name: 'Positions' }).click();
    await ui.tab('Closed').click();
    await expect.poll(() => closedRows.first().isVisible()).toBe(true);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: path.join(ARTIFACTS, 'trading-closed-390.png') });

    expect(problems).toEqual([]);
    expect(offsite).toEqual([]);
    await context.close();
  });
});
