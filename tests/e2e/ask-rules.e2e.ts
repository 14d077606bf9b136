import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, openPage, startE2e, type E2eEnv } from './support/browser';
import { signUpAndLogInThroughUi } from './support/session';

const TOKEN = 'e2e-ingest-token-0123456789';

describe('rules that ask first, in the browser', () => {
  let env: E2eEnv;
  beforeAll(async () => {
    env = await startE2e({ MARKET_SOURCE: 'sim', NEWS_SOURCES: 'webhook', INGEST_TOKEN: TOKEN });
  });
  afterAll(async () => {
    await env?.close();
  });

  it('proposes the order in a toast with its news and a countdown; Confirm places it', async () => {
    const { page } = await openPage(env);
    await page.goto(env.baseUrl + '/');
    await signUpAndLogInThroughUi(page, 'asa@example.com', 'asa', 'ask rules pass 1');

    await page.locator('header.header').getByRole('button', { name: 'Trade Rules' }).click();
    const modal = page.getByRole('dialog', { name: 'Trade Rules & Settings' });
    const form = modal.getByRole('form', { name: 'Add rule' });
    await form.getByLabel('Name').fill('SOL ask');
    await form.getByLabel('Asset (blank: any)').fill('sol');
    // Low enough that the rule matches whatever the model scores a perpetual listing (notable, ~50).
    await form.getByLabel('Min impact').fill('20');
    await form.getByLabel('Amount (USDT)').fill('200');
    await form.getByLabel('Mode').selectOption('ask');
    await form.getByLabel('Ask window in seconds').fill('90');
    await form.getByRole('button', { name: 'Add rule' }).click();
    await expect.poll(() => page.getByTestId('rules-notice').innerText()).toBe('Saved: SOL ask.');
    await expect.poll(() => modal.getByTestId('rule-mode').innerText()).toBe('ASK');
    await expect
      .poll(() => modal.getByTestId('rule-row').innerText())
      .toContain('long 200 USDT, ask first (90 s)');
    await modal.screenshot({ path: path.join(ARTIFACTS, 'ask-rule-modal-1440.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    await modal.screenshot({ path: path.join(ARTIFACTS, 'ask-rule-modal-390.png') });
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.keyboard.press('Escape');

    const res = await fetch(`${env.baseUrl}/api/signals/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        content: 'Coinbase will list SOL perpetual futures with 20x leverage',
        source_name: 'CoinDesk',
        published_at: Date.now() - 1500,
      }),
    });
    expect(res.status).toBe(202);

    const toast = page.getByTestId('proposal');
    await expect.poll(() => toast.count(), { timeout: 15_000 }).toBe(1);
    const text = await toast.innerText();
    expect(text).toContain('rule ‘SOL ask’ asks');
    expect(text).toContain('LONG 200 USDT SOL on paper');
    expect(text).toContain('Coinbase will list SOL perpetual futures with 20x leverage');
    expect(text).toMatch(/positive · impact \d+/);
    expect(await toast.getByTestId('proposal-left').innerText()).toMatch(/^(8\d|90) s$/);
    // Nothing is placed before the answer.
    expect(await page.getByTestId('positions').innerText()).not.toContain('SOL/USDT');
    // The terminal asks too (read without the line breaks the terminal's width puts in it).
    const screen = () =>
      page
        .locator('[data-testid="terminal"] .xterm-rows')
        .innerText()
        .then((t) => t.replace(/\s+/g, ''));
    await expect.poll(screen).toContain("rule'SOLask'asks:LONG200USDTSOLon#");
    await expect.poll(screen).toMatch(/confirm\?\[y\/N\]\(\d+s\)/);

    await page.screenshot({ path: path.join(ARTIFACTS, 'ask-toast-1440.png') });
    await toast.screenshot({ path: path.join(ARTIFACTS, 'ask-toast-only.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    const box = await toast.boundingBox();
    expect(box !== null && box.x >= 0 && box.x + box.width <= 390).toBe(true);
    await page.screenshot({ path: path.join(ARTIFACTS, 'ask-toast-390.png') });
    await page.setViewportSize({ width: 1440, height: 900 });

    await toast.getByRole('button', { name: 'Confirm' }).click();
    await expect
      .poll(() => page.getByTestId('positions').innerText(), { timeout: 15_000 })
      .toContain('SOL/USDT');
    await expect
      .poll(() => page.getByTestId('proposal-closed').innerText(), { timeout: 10_000 })
      .toMatch(/^Confirmed in the browser: placed LONG [\d.]+ SOL at [\d.]+\.$/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'ask-toast-confirmed.png') });
    // Then it goes.
    await expect.poll(() => toast.count(), { timeout: 10_000 }).toBe(0);
  });
});
