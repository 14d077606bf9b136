import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, openPage, startE2e, type E2eEnv } from './support/browser';
import { signUpAndLogInThroughUi } from './support/session';

const SHOTS = process.env.SHOTS_DIR ?? ARTIFACTS;

/** Page object: the feed's cards and popover, the toasts and their Recent list, the terminal's log. */
class OneLogPage {
  constructor(readonly page: Page) {}

  feed = () => this.page.getByTestId('feed-pane');
  log = () => this.page.getByTestId('terminal-log').innerText();
  toast = (text: string) => this.page.getByTestId('toast').filter({ hasText: text });
  recentButton = () => this.page.getByTestId('recent-button');
  recentList = () => this.page.getByTestId('recent-list');
  tab = (name: string) => this.page.getByRole('tab', { name: new RegExp(`^${name}(?!s)`) });

  /** Puts the feed's focus ring on a card that has a source link (Enter there would open it). */
  async ringOnLinkedCard(): Promise<string> {
    const card = this.feed().locator('[data-testid="signal-card"]:has(a.card-from.linked)').first();
    await card.getByTestId('card-id').click();
    return (await card.getAttribute('data-id')) ?? '';
  }

  /** Opens the quick-trade popover of a tradable tag and focuses its first long amount button. */
  async focusAmountButton(): Promise<boolean> {
    const tag = this.feed().locator('[data-testid="asset-tag"][data-tradable="true"]').first();
    await tag.hover();
    const popover = this.feed().getByTestId('quick-trade');
    await popover.waitFor({ timeout: 2_000 }).catch(() => undefined);
    if ((await popover.count()) === 0) return false;
    await popover.locator('.quick-trade-row.long button').first().focus();
    return true;
  }
}

describe('one log: an order placed anywhere says so in the terminal', () => {
  let env: E2eEnv;
  let context: BrowserContext;
  let page: Page;
  let ui: OneLogPage;
  let problems: string[];
  let offsite: string[];
  const popups: string[] = [];

  beforeAll(async () => {
    env = await startE2e({ MARKET_SOURCE: 'sim', MARKET_SIM_TICK_MS: '250', REPLAY_INTERVAL_MS: '900' });
    ({ context, page, problems, offsite } = await openPage(env));
    context.on('page', (opened) => popups.push(opened.url()));
    ui = new OneLogPage(page);
    await page.goto(env.baseUrl + '/');
  }, 180_000);
  afterAll(async () => {
    await context?.close();
    await env?.close();
  });

  it('Enter on a card amount button places the order; the result is a toast, kept in Recent, and in the terminal', async () => {
    await page.waitForSelector('[data-testid="terminal"] .xterm');
    await signUpAndLogInThroughUi(page, 'lou@example.com', 'lou', 'one log pass 1');
    await expect
      .poll(() => ui.feed().locator('[data-testid="asset-tag"][data-tradable="true"]').count(), {
        timeout: 20_000,
      })
      .toBeGreaterThan(0);
    const filled = ui.toast('Successfully placed');
    for (let attempt = 0; attempt < 5 && (await filled.count()) === 0; attempt += 1) {
      await ui.ringOnLinkedCard();
      if (!(await ui.focusAmountButton())) continue;
      await page.keyboard.press('Enter');
      await filled.waitFor({ timeout: 5_000 }).catch(() => undefined);
    }
    // The spec's words, then what filled and where; no card's article opened instead.
    const text = await filled.innerText();
    expect(text).toMatch(
      /^Successfully placed LONG order for ([0-9A-Z]+)\/USDT with 100 USDT\. Filled LONG [\d.]+ \S+ ≈ [\d,.]+ USDT of \1\/USDT at [\d,.]+, fee [\d.]+ USDT\..* Paper exchange: no real funds\./,
    );
    expect(popups).toEqual([]);
    const pair = /for ([0-9A-Z]+\/USDT)/.exec(text)?.[1] ?? '';
    // One log: the terminal has the server's answer, naming the card and the account.
    await expect
      .poll(ui.log)
      .toMatch(
        new RegExp(
          `Card #\\d+: Success! Order ID: [0-9a-f-]{36}\\. Filled LONG .* of ${pair.replace('/', '\\/')} .*Paper exchange: no real funds\\.`,
        ),
      );
    await page.screenshot({ path: path.join(SHOTS, 'terminal-one-log-toast-1440.png') });

    // Gone from the screen, the result is still in Recent.
    await filled.getByRole('button', { name: 'Dismiss' }).click();
    await expect.poll(() => filled.count()).toBe(0);
    expect(await ui.recentButton().innerText()).toBe('Recent · 1');
    await ui.recentButton().click();
    await expect
      .poll(() => ui.recentList().innerText())
      .toContain(`Successfully placed LONG order for ${pair}`);
    expect(await ui.recentButton().innerText()).toBe('Recent');
    await page.screenshot({ path: path.join(SHOTS, 'terminal-one-log-recent-1440.png') });
    await page.keyboard.press('Escape');
    await expect.poll(() => ui.recentList().count()).toBe(0);
  });

  it("echoes the trade panel's fill and refusal in the terminal", async () => {
    await ui.tab('Trade').click();
    const panel = page.getByTestId('trade-panel');
    await panel.getByLabel('Total (USDT)').fill('250');
    await panel.getByRole('button', { name: 'Buy / Long' }).click();
    await expect
      .poll(ui.log)
      .toMatch(
        /Trade panel: Success! Order ID: [0-9a-f-]{36}\. Filled LONG [\d.]+ BTC .*Paper exchange: no real funds\./,
      );
    await panel.getByLabel('Total (USDT)').fill('90000000');
    await panel.getByRole('button', { name: 'Buy / Long' }).click();
    await expect.poll(ui.log).toMatch(/Trade panel: Error: /);
    // The refusal itself is the browser's one expected complaint.
    expect(problems.filter((p) => !/status of 400 .*\/api\/orders\)$/.test(p))).toEqual([]);
    expect(offsite).toEqual([]);
  });

  it('on a phone, a card trade result is a toast above the tab bar, with Recent beside it', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('.phone-tab', { hasText: 'Feed' }).click();
    const filled = ui.toast('Successfully placed');
    await expect.poll(() => filled.count()).toBe(0);
    for (let attempt = 0; attempt < 5 && (await filled.count()) === 0; attempt += 1) {
      const tag = ui.feed().locator('[data-testid="asset-tag"][data-tradable="true"]').first();
      await tag.click({ timeout: 2_000 }).catch(() => undefined);
      const popover = ui.feed().getByTestId('quick-trade');
      await popover.waitFor({ timeout: 2_000 }).catch(() => undefined);
      if ((await popover.count()) === 0) continue;
      await popover
        .locator('.quick-trade-row.long button')
        .first()
        .click({ timeout: 2_000 })
        .catch(() => undefined);
      await filled.waitFor({ timeout: 5_000 }).catch(() => undefined);
    }
    expect(await filled.innerText()).toMatch(
      /^Successfully placed LONG order for [0-9A-Z]+\/USDT with 100 USDT\./,
    );
    await expect.poll(ui.log).toMatch(/Card #\d+: Success! Order ID: .*\n?.*Card #\d+: Success! Order ID: /s);
    await page.screenshot({ path: path.join(SHOTS, 'terminal-one-log-toast-390.png') });
    await ui.recentButton().click();
    await expect.poll(() => ui.recentList().innerText()).toContain('Successfully placed LONG order');
    await page.screenshot({ path: path.join(SHOTS, 'terminal-one-log-recent-390.png') });
    await page.locator('.phone-tab', { hasText: 'Terminal' }).click();
    await page.screenshot({ path: path.join(SHOTS, 'terminal-one-log-terminal-390.png') });
    await page.keyboard.press('Escape');
    await page.setViewportSize({ width: 1440, height: 900 });
  });
});
