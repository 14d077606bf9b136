import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, openPage, startE2e, type E2eEnv } from './support/browser';

/** Page object for the command line at the centre of the dashboard. */
class Terminal {
  constructor(private readonly page: Page) {}

  /** True when keyboard focus is inside the xterm pane. */
  hasFocus(): Promise<boolean> {
    return this.page.evaluate(() => {
      const term = document.querySelector('[data-testid="terminal"]');
      return !!term && !!document.activeElement && term.contains(document.activeElement);
    });
  }

  async run(line: string): Promise<void> {
    await this.page.keyboard.type(line);
    await this.page.keyboard.press('Enter');
  }

  log(): Promise<string> {
    return this.page.locator('[data-testid="terminal-log"]').innerText();
  }

  async waitForLog(text: string): Promise<string> {
    await this.page.waitForFunction(
      (t) => (document.querySelector('[data-testid="terminal-log"]')?.textContent ?? '').includes(t),
      text,
      { timeout: 10_000 },
    );
    return this.log();
  }
}

describe('the dashboard shell', () => {
  let env: E2eEnv;
  beforeAll(async () => {
    env = await startE2e();
  });
  afterAll(async () => {
    await env?.close();
  });

  it('loads with no console error, focuses the command line, and runs help', async () => {
    const { page, problems, offsite, context } = await openPage(env);
    await page.goto(env.baseUrl + '/');
    const terminal = new Terminal(page);
    await page.waitForSelector('[data-testid="terminal"] .xterm');
    await expect.poll(() => terminal.hasFocus()).toBe(true);

    await terminal.run('help');
    const log = await terminal.waitForLog('symbol');
    expect(log).toContain('help');
    expect(log).toContain('clear');

    await terminal.run('symbol eth');
    await expect.poll(() => page.locator('header').innerText()).toContain('ETH/USDT');

    await expect.poll(() => page.locator('header').innerText()).toContain('Live');
    await page.screenshot({ path: path.join(ARTIFACTS, 'dashboard.png') });
    expect(problems).toEqual([]);
    expect(offsite).toEqual([]);
    await context.close();
  });

  it('gives focus back to the command line on "/" and Ctrl+`', async () => {
    const { page, context } = await openPage(env);
    await page.goto(env.baseUrl + '/');
    const terminal = new Terminal(page);
    await expect.poll(() => terminal.hasFocus()).toBe(true);
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    expect(await terminal.hasFocus()).toBe(false);
    await page.keyboard.press('/');
    await expect.poll(() => terminal.hasFocus()).toBe(true);
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('Control+Backquote');
    await expect.poll(() => terminal.hasFocus()).toBe(true);
    await context.close();
  });

  it.each(['/reset-password', '/payment/success', '/payment/cancel', '/payment/pending'])(
    'serves the route %s',
    async (route) => {
      const { page, problems, context } = await openPage(env);
      const res = await page.goto(env.baseUrl + route);
      expect(res?.status()).toBe(200);
      await page.waitForSelector('#root > *');
      expect(problems).toEqual([]);
      await context.close();
    },
  );
});
