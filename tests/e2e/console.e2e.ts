import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, openPage, startE2e, type E2eEnv } from './support/browser';

/** Page object for the command console: the xterm terminal, its transcript, the palette and the key map. */
class Console {
  constructor(private readonly page: Page) {}

  async open(baseUrl: string): Promise<void> {
    await this.page.goto(baseUrl + '/');
    await this.page.waitForSelector('[data-testid="terminal"] .xterm');
    await expect.poll(() => this.hasFocus()).toBe(true);
  }

  hasFocus(): Promise<boolean> {
    return this.page.evaluate(() => {
      const term = document.querySelector('[data-testid="terminal"]');
      return !!term && !!document.activeElement && term.contains(document.activeElement);
    });
  }

  async type(text: string): Promise<void> {
    await this.page.keyboard.type(text);
  }

  async run(line: string): Promise<void> {
    await this.page.keyboard.type(line);
    await this.page.keyboard.press('Enter');
  }

  log = () => this.page.getByTestId('terminal-log').innerText();
  /** The rows xterm shows (what the person sees, including the line being typed). */
  screen = () => this.page.locator('[data-testid="terminal"] .xterm-rows').innerText();
  palette = () => this.page.locator('.palette-content');

  async waitForLog(text: string): Promise<string> {
    await expect.poll(() => this.log(), { timeout: 10_000 }).toContain(text);
    return this.log();
  }
}

describe('the command console', () => {
  let env: E2eEnv;
  beforeAll(async () => {
    env = await startE2e();
  });
  afterAll(async () => {
    await env?.close();
  });

  it('completes bt → btc on Tab, prints help long, and shows the prompt guest@BTC/USDT paper ›', async () => {
    const { page, problems, offsite, context } = await openPage(env, { width: 1280, height: 720 });
    const ui = new Console(page);
    await ui.open(env.baseUrl);
    await expect.poll(() => ui.screen()).toContain('guest@BTC/USDT paper ›');

    await ui.type('bt');
    await page.keyboard.press('Tab');
    await expect.poll(() => ui.screen()).toContain('guest@BTC/USDT paper › btc');
    await page.keyboard.press('Enter');
    await ui.waitForLog('Symbol set to BTC/USDT.');
    expect(await ui.log()).toContain('guest@BTC/USDT paper › btc');

    await ui.run('help long');
    const log = await ui.waitForLog('Usage: long [amount...]');
    expect(log).toContain('Aliases: buy');
    expect(log).toContain('long 2.5k');

    await ui.run('lnog 5k');
    await ui.waitForLog("Unknown command: 'lnog'. Did you mean 'long'?");
    await page.screenshot({ path: path.join(ARTIFACTS, 'console-1280x720.png') });
    expect(problems).toEqual([]);
    expect(offsite).toEqual([]);
    await context.close();
  });

  it('finds and runs positions from the Ctrl+K palette, printing in the terminal', async () => {
    const { page, problems, context } = await openPage(env, { width: 1280, height: 720 });
    const ui = new Console(page);
    await ui.open(env.baseUrl);
    // Sign up and log in from the terminal (passwords are not echoed).
    await ui.run('signup pal@example.com pal');
    await ui.run('palette pass 1');
    await ui.run('palette pass 1');
    await ui.waitForLog('Registration successful');
    await ui.run('login pal');
    await ui.run('palette pass 1');
    await ui.waitForLog('Logged in as pal.');
    expect(await ui.log()).not.toContain('palette pass 1');

    await page.keyboard.press('Control+k');
    await expect.poll(() => ui.palette().isVisible()).toBe(true);
    await page.keyboard.type('postns');
    await expect.poll(() => ui.palette().locator('[cmdk-item]').first().innerText()).toContain('positions');
    await page.screenshot({ path: path.join(ARTIFACTS, 'console-palette.png') });
    await page.keyboard.press('Enter');
    await expect.poll(() => ui.palette().count()).toBe(0);
    const log = await ui.waitForLog('No open positions.');
    expect(log).toContain('pal@BTC/USDT paper › positions');

    // A command with arguments gets a small form from its schema.
    await page.keyboard.press('Control+k');
    await page.keyboard.type('symbol');
    await page.keyboard.press('Enter');
    await page.getByRole('form', { name: 'Arguments of symbol' }).getByRole('textbox').fill('eth');
    await page.keyboard.press('Enter');
    await ui.waitForLog('Symbol set to ETH/USDT.');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows the key map on ?, focuses panes with g keys, and stacks panes below 768 px', async () => {
    const { page, problems, context } = await openPage(env, { width: 1280, height: 720 });
    const ui = new Console(page);
    await ui.open(env.baseUrl);
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('Shift+Slash');
    await expect.poll(() => page.getByTestId('keymap').isVisible()).toBe(true);
    expect(await page.getByTestId('keymap').innerText()).toContain('Ctrl+K / Cmd+K');
    await page.screenshot({ path: path.join(ARTIFACTS, 'console-keymap.png') });
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('keymap').count()).toBe(0);
    await page.keyboard.press('g');
    await page.keyboard.press('f');
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-pane') ?? null))
      .toBe('feed');
    await page.keyboard.press('Control+4');
    await expect.poll(() => ui.hasFocus()).toBe(true);

    await page.setViewportSize({ width: 700, height: 900 });
    // Below 768 px one pane fills the width above the bottom bar that switches it.
    await expect.poll(() => page.getByTestId('dashboard-phone').isVisible()).toBe(true);
    const shown = page.locator('.phone-pane:not([hidden])');
    expect(await shown.count()).toBe(1);
    expect(Math.round((await shown.boundingBox())?.width ?? 0)).toBe(700);
    await page.screenshot({ path: path.join(ARTIFACTS, 'console-narrow.png') });
    expect(problems).toEqual([]);
    await context.close();
  });
});
