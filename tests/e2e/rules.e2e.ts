import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, openPage, startE2e, type E2eEnv } from './support/browser';
import { signUpAndLogInThroughUi } from './support/session';

const TOKEN = 'e2e-ingest-token-0123456789';

describe('auto-trade rules in the browser', () => {
  let env: E2eEnv;
  beforeAll(async () => {
    env = await startE2e({ MARKET_SOURCE: 'sim', NEWS_SOURCES: 'webhook', INGEST_TOKEN: TOKEN });
  });
  afterAll(async () => {
    await env?.close();
  });

  it('creates a rule in the modal, fires it with a signal, and shows the position, the ledger row and the card note', async () => {
    const { page, problems, offsite } = await openPage(env);
    await page.goto(env.baseUrl + '/');
    await signUpAndLogInThroughUi(page, 'rita@example.com', 'rita', 'rules pass 1');

    const opener = page.locator('header.header').getByRole('button', { name: 'Trade Rules' });
    await opener.click();
    const modal = page.getByRole('dialog', { name: 'Trade Rules & Settings' });
    await expect.poll(() => modal.innerText()).toContain('No rules yet');
    const form = modal.getByRole('form', { name: 'Add rule' });
    await form.getByLabel('Name').fill('SOL listings');
    await form.getByLabel('Asset (blank: any)').fill('sol');
    await form.getByLabel('Min impact').fill('50');
    await form.getByLabel('Amount (USDT)').fill('200');
    await form.getByRole('button', { name: 'Add rule' }).click();
    await expect.poll(() => page.getByTestId('rules-notice').innerText()).toBe('Saved: SOL listings.');
    await expect
      .poll(() => modal.getByTestId('rule-row').innerText())
      .toContain('SOL positive 50-100 → long 200 USDT');
    await expect.poll(() => modal.getByTestId('kill-state').innerText()).toContain('Automated trading is on');

    // Esc closes the modal and gives focus back to the button that opened it.
    await page.keyboard.press('Escape');
    await expect.poll(() => modal.count()).toBe(0);
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Trade Rules');

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
      .poll(() => page.getByTestId('positions').innerText(), { timeout: 15_000 })
      .toContain('SOL/USDT');
    await expect
      .poll(() => page.getByTestId('card-rule').first().innerText(), { timeout: 15_000 })
      .toMatch(/^Rule SOL listings: long [\d.]+ SOL = \d+\.\d\d USDT, [\d.]+ ms after the news\.$/);

    await opener.click();
    await expect.poll(() => modal.getByTestId('ledger-row').first().innerText()).toContain('fired');
    await page.screenshot({ path: path.join(ARTIFACTS, 'rules-modal.png') });
    await modal.getByRole('button', { name: 'Stop all automated trading' }).click();
    await expect
      .poll(() => modal.getByTestId('kill-state').innerText())
      .toContain('Automated trading is OFF');
    expect(problems).toEqual([]);
    expect(offsite).toEqual([]);
  });
});
