import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, openPage, startE2e, type E2eEnv } from './support/browser';
import { signUpAndLogInThroughUi } from './support/session';

const TOKEN = 'e2e-ingest-token-trader-0123456';

/** Page object for what a trader watches: the terminal, the header's chips, the panes. */
class TraderPage {
  constructor(readonly page: Page) {}

  header = () => this.page.locator('header.header');
  chip = () => this.page.getByTestId('auto-chip');
  log = () => this.page.getByTestId('terminal-log').innerText();

  async run(line: string): Promise<void> {
    await this.page.locator('[data-testid="terminal"] .xterm').click();
    await this.page.keyboard.type(line);
    await this.page.keyboard.press('Enter');
  }
}

describe('what a trader sees', () => {
  let env: E2eEnv;
  beforeAll(async () => {
    env = await startE2e({ MARKET_SOURCE: 'sim', NEWS_SOURCES: 'webhook', INGEST_TOKEN: TOKEN });
  });
  afterAll(async () => {
    await env?.close();
  });

  it('a rule that fires says so in the terminal, and the AUTO chip shows it on, its spend, and the kill switch', async () => {
    const { page, problems, offsite, context } = await openPage(env);
    const ui = new TraderPage(page);
    await page.goto(env.baseUrl + '/');
    await signUpAndLogInThroughUi(page, 'ada@example.com', 'ada', 'trader pass 1');
    expect(await ui.chip().count()).toBe(0);

    // 20: low enough that the rule matches whatever the model scores a perpetual listing (notable, ~50).
    await ui.run('rule add sol positive 20-100 long 200 "SOL listings"');
    await expect.poll(() => ui.log()).toMatch(/Rule [0-9a-f]{8} saved: SOL listings/);
    await expect.poll(() => ui.chip().innerText()).toBe('AUTO · 1 rule · 0 / 5,000 USDT today');

    const res = await fetch(`${env.baseUrl}/api/signals/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        content: 'Coinbase will list SOL perpetual futures with 20x leverage',
        source_name: 'CoinDesk',
      }),
    });
    expect(res.status).toBe(202);
    await expect
      .poll(() => ui.log(), { timeout: 15_000 })
      .toMatch(
        /rule 'SOL listings' → LONG [\d.]+ SOL at [\d,.]+, fee [\d.]+ USDT on #\d+ 'Coinbase will list SOL perpetual [a-z]+…'/,
      );
    await expect
      .poll(() => ui.chip().innerText())
      .toMatch(/^AUTO · 1 rule · [12]\d\d\.\d\d \/ 5,000 USDT today$/);
    await ui.header().screenshot({ path: path.join(ARTIFACTS, 'trader-auto-chip.png') });

    // The kill switch turns the chip red: rules are on, but nothing is sent.
    await ui.run('rules off');
    await expect.poll(() => ui.chip().innerText()).toBe('AUTO OFF');
    expect(await ui.chip().getAttribute('class')).toContain('off');
    await ui.header().screenshot({ path: path.join(ARTIFACTS, 'trader-auto-off.png') });
    await ui.chip().click();
    const modal = page.getByRole('dialog', { name: 'Trade Rules & Settings' });
    await expect
      .poll(() => modal.getByTestId('kill-state').innerText())
      .toContain('Automated trading is OFF');
    await page.keyboard.press('Escape');

    expect(problems).toEqual([]);
    expect(offsite).toEqual([]);
    await context.close();
  });

  it('on a phone (390×844) the header is one row and a bottom bar switches Feed, Chart, Positions and Terminal', async () => {
    const { page, problems, offsite, context } = await openPage(env, { width: 390, height: 844 });
    const ui = new TraderPage(page);
    await page.goto(env.baseUrl + '/');
    const bar = page.getByRole('tablist', { name: 'Panes' });
    const tab = (name: string) => bar.getByRole('tab', { name });
    const pane = (id: string) => page.getByTestId(`phone-pane-${id}`);
    await expect.poll(() => pane('feed').isVisible()).toBe(true);
    expect(await bar.getByRole('tab').allInnerTexts()).toEqual(['Feed', 'Chart', 'Positions', 'Terminal']);
    expect(await tab('Feed').getAttribute('aria-selected')).toBe('true');
    expect(await pane('chart').isVisible()).toBe(false);

    // One row: the symbol, the live dot and a menu, however the page is scrolled.
    const header = await ui.header().boundingBox();
    expect(header?.height).toBeLessThanOrEqual(56);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    const barBox = await bar.boundingBox();
    expect(Math.round((barBox?.y ?? 0) + (barBox?.height ?? 0))).toBe(844);
    await page.screenshot({ path: path.join(ARTIFACTS, 'phone-feed.png') });

    // The account's buttons are in the menu: sign up and log in from there.
    await ui.header().getByRole('button', { name: 'Menu' }).click();
    await page.screenshot({ path: path.join(ARTIFACTS, 'phone-menu.png') });
    await page.getByTestId('header-menu').getByRole('button', { name: 'Sign Up' }).click();
    expect(await page.getByTestId('header-menu').count()).toBe(0);
    const modal = page.getByRole('dialog');
    await modal.getByLabel('Email').fill('pip@example.com');
    await modal.getByLabel('Username').fill('pip');
    await modal.getByLabel('Password').fill('phone pass 1');
    await modal.locator('form').getByRole('button', { name: 'Sign Up' }).click();
    await expect.poll(() => page.getByTestId('auth-notice').innerText()).toContain('Registration successful');
    await modal.getByLabel('Username or email').fill('pip');
    await modal.getByLabel('Password').fill('phone pass 1');
    await modal.locator('form').getByRole('button', { name: 'Login' }).click();
    await expect.poll(() => modal.count()).toBe(0);

    // After login the command line is shown and has focus; an order from it fills.
    await expect.poll(() => pane('terminal').isVisible()).toBe(true);
    expect(await tab('Terminal').getAttribute('aria-selected')).toBe('true');
    await page.keyboard.type('eth long 200');
    await page.keyboard.press('Enter');
    await expect.poll(() => ui.log(), { timeout: 15_000 }).toMatch(/Filled LONG [\d.]+ ETH/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'phone-terminal.png') });

    await tab('Positions').click();
    expect(await pane('terminal').isVisible()).toBe(false);
    await expect.poll(() => pane('positions').getByTestId('position-row').count()).toBe(1);
    await page.screenshot({ path: path.join(ARTIFACTS, 'phone-positions.png') });

    await tab('Chart').click();
    await expect.poll(() => pane('chart').isVisible()).toBe(true);
    await page.screenshot({ path: path.join(ARTIFACTS, 'phone-chart.png') });

    await ui.header().getByRole('button', { name: 'Menu' }).click();
    expect(await page.getByTestId('header-menu').innerText()).toContain('Logout');
    await page.keyboard.press('Escape');
    expect(await page.getByTestId('header-menu').count()).toBe(0);
    expect((await ui.header().boundingBox())?.height).toBeLessThanOrEqual(56);

    expect(problems).toEqual([]);
    expect(offsite).toEqual([]);
    await context.close();
  });
});
