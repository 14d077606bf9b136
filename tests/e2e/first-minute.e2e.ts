import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractSymbolOf } from '../../src/contracts/symbols';
import { ARTIFACTS, openPage, startE2e, type E2eEnv } from './support/browser';
import { signUpAndLogInThroughUi } from './support/session';

/** Page object for a first visit: the welcome, the feed's tags, the header and the auth window. */
class FirstVisit {
  constructor(readonly page: Page) {}

  welcome = () => this.page.getByTestId('welcome');
  log = () => this.page.getByTestId('terminal-log').innerText();
  header = () => this.page.locator('header.header');
  modal = () => this.page.getByRole('dialog');
  focused = () => this.page.evaluate(() => document.activeElement?.outerHTML.slice(0, 80) ?? '');
  chartSymbol = () => this.page.evaluate(() => document.title);

  /** A tradable `$TICKER` tag on a card, and its ticker. */
  async tradableTag(): Promise<{ ticker: string }> {
    const tag = this.page.locator('[data-testid="asset-tag"][data-tradable="true"]').first();
    await expect.poll(() => tag.count(), { timeout: 20_000 }).toBe(1);
    return { ticker: (await tag.getAttribute('data-ticker')) ?? '' };
  }
}

describe('the first minute', () => {
  let env: E2eEnv;
  beforeAll(async () => {
    env = await startE2e({ MARKET_SOURCE: 'sim', MARKET_SIM_TICK_MS: '250', REPLAY_INTERVAL_MS: '3000' });
  });
  afterAll(async () => {
    await env?.close();
  });

  it('greets a first visitor with three lines to run and what logging in unlocks; a click runs one', async () => {
    const { page, problems } = await openPage(env);
    const ui = new FirstVisit(page);
    await page.goto(env.baseUrl + '/');
    await expect.poll(() => ui.welcome().count()).toBe(1);
    expect(await ui.welcome().getByTestId('welcome-try').allInnerTexts()).toEqual([
      'feed --min 70',
      'price btc',
      'help',
    ]);
    expect(await ui.welcome().innerText()).toContain('Log in to trade futures');
    await page.locator('#terminal').screenshot({ path: path.join(ARTIFACTS, 'welcome.png') });
    await ui.welcome().getByRole('button', { name: 'price btc' }).click();
    await expect.poll(() => ui.log()).toMatch(/› price btc\n/);
    // Enter on a focused line runs it too (they are buttons).
    await ui.welcome().getByRole('button', { name: 'help' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => ui.log()).toContain('Start with:');
    await ui.welcome().getByRole('button', { name: 'Hide the welcome' }).click();
    await expect.poll(() => ui.welcome().count()).toBe(0);
    await page.reload();
    await expect.poll(() => page.getByTestId('signal-card').count()).toBeGreaterThan(0);
    expect(await ui.welcome().count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('a $TICKER tag is a button, and a click puts its coin on the chart', async () => {
    const { page, context } = await openPage(env);
    const ui = new FirstVisit(page);
    await page.goto(env.baseUrl + '/');
    const { ticker } = await ui.tradableTag();
    const tag = page.locator(`[data-testid="asset-tag"][data-ticker="${ticker}"]`).first();
    expect(await tag.evaluate((t) => t.tagName)).toBe('BUTTON');
    await tag.click();
    // The coin's own pair, or its 1000-unit contract (PEPE → 1000PEPE), whichever trades.
    const base = (contractSymbolOf(ticker) ?? `${ticker}USDT`).replace(/USDT$/, '');
    await expect.poll(() => ui.log()).toContain(`› symbol ${base.toLowerCase()}`);
    await expect.poll(() => page.getByTestId('chart-symbol').innerText()).toContain(base);
    await context.close();
  });

  it('focus is back on the command line after login, stale notices go, Enter on a tag opens quick trade, keys --open', async () => {
    const { page } = await openPage(env);
    const ui = new FirstVisit(page);
    await page.goto(env.baseUrl + '/');
    // A guest's order from the panel asks to log in.
    await page.getByRole('tab', { name: 'Trade', exact: true }).click();
    const panel = page.getByTestId('trade-panel');
    await panel.getByLabel('Total (USDT)').fill('100');
    await panel.getByRole('button', { name: 'Buy / Long' }).click();
    await expect.poll(() => page.getByTestId('trade-status').innerText()).toBe('Please log in to trade.');

    await signUpAndLogInThroughUi(page, 'fia@example.com', 'fia', 'first minute 1');
    await expect.poll(() => ui.header().innerText()).toContain('Logout');
    await expect.poll(() => ui.focused()).toContain('xterm-helper-textarea');
    // The panel's "Please log in to trade." went with its cause.
    expect(await page.getByTestId('trade-status').innerText()).not.toContain('Please log in');
    // Logged in, Enter on a focused tag opens the quick-trade rows.
    const { ticker } = await ui.tradableTag();
    await page.locator(`[data-testid="asset-tag"][data-ticker="${ticker}"]`).first().focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('quick-trade').count()).toBe(1);
    await page
      .getByTestId('feed-pane')
      .screenshot({ path: path.join(ARTIFACTS, 'tag-keyboard-popover.png') });
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('quick-trade').count()).toBe(0);
    await page.locator('[data-testid="terminal"] .xterm').click();

    // Commands open the windows the header buttons open.
    await page.keyboard.type('keys --open');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('dialog', { name: 'API Key Management' }).count()).toBe(1);
    // "cannot be empty" goes once both fields are filled.
    const keys = page.getByRole('dialog', { name: 'API Key Management' });
    await keys.getByRole('button', { name: 'Save Key' }).click();
    await expect.poll(() => page.getByTestId('keys-notice').innerText()).toContain('cannot be empty');
    await keys.getByLabel('API Key').fill('abcd1234efgh');
    await keys.getByLabel('Secret Key').fill('secret');
    await expect.poll(() => page.getByTestId('keys-notice').innerText()).toBe('');
    await page.keyboard.press('Escape');
    await page.screenshot({ path: path.join(ARTIFACTS, 'first-minute-logged-in.png') });
  });

  it('on a phone (390 px) fields are 16 px, so iOS does not zoom', async () => {
    const { page, context } = await openPage(env, { width: 390, height: 844 });
    await page.goto(env.baseUrl + '/');
    // On a phone the header's buttons are in its menu.
    await page.locator('header.header').getByRole('button', { name: 'Menu' }).click();
    await page.locator('header.header').getByRole('button', { name: 'Login' }).click();
    const sizes = await page
      .getByRole('dialog')
      .locator('input')
      .evaluateAll((inputs) => inputs.map((i) => getComputedStyle(i).fontSize));
    expect(sizes.length).toBeGreaterThan(0);
    expect(new Set(sizes)).toEqual(new Set(['16px']));
    expect(await page.locator('.xterm-helper-textarea').evaluate((t) => getComputedStyle(t).fontSize)).toBe(
      '16px',
    );
    await page.screenshot({ path: path.join(ARTIFACTS, 'phone-login.png') });
    await context.close();
  });
});
