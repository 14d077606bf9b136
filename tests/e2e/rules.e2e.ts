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
    // Low enough that the rule matches whatever the model scores a perpetual listing (notable, ~50).
    await form.getByLabel('Min impact').fill('20');
    await form.getByLabel('Amount (USDT)').fill('200');
    await form.getByRole('button', { name: 'Add rule' }).click();
    await expect.poll(() => page.getByTestId('rules-notice').innerText()).toBe('Saved: SOL listings.');
    await expect
      .poll(() => modal.getByTestId('rule-row').innerText())
      .toContain('SOL positive 20-100 → long 200 USDT');
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
        // Published a second and a half before the server had it (epoch ms, as a relay may send it).
        published_at: Date.now() - 1500,
      }),
    });
    expect(res.status).toBe(202);

    await expect
      .poll(() => page.getByTestId('positions').innerText(), { timeout: 15_000 })
      .toContain('SOL/USDT');
    await expect
      .poll(() => page.getByTestId('card-rule').first().innerText(), { timeout: 15_000 })
      .toMatch(
        /^Rule SOL listings: long [\d.]+ SOL = \d+\.\d\d USDT, \d+ ms after the news: analysed \d+, decided \d+, paper \d+\.$/,
      );

    // The fire is told in a toast, the card that set it off is marked, and the position is tagged AUTO
    // with the rule's name on hover.
    await expect
      .poll(() => page.getByTestId('toast').first().innerText(), { timeout: 15_000 })
      .toMatch(
        /^rule 'SOL listings' → LONG [\d.]+ SOL at [\d,.]+, fee [\d.]+ USDT on #\d+ 'Coinbase will list SOL/,
      );
    expect(await page.getByTestId('toast').first().getAttribute('data-tone')).toBe('event');
    expect(await page.getByTestId('signal-card').first().getAttribute('data-rule')).toBe('fired');
    const autoTag = page.getByTestId('position-row').filter({ hasText: 'SOL/USDT' }).getByTestId('auto-tag');
    await expect.poll(() => autoTag.innerText(), { timeout: 15_000 }).toBe('AUTO');
    expect(await autoTag.getAttribute('title')).toBe("Opened by your rule 'SOL listings'");
    await page.screenshot({ path: path.join(ARTIFACTS, 'rule-fired-toast-1440.png') });
    // On a phone the toast sits above the bottom bar, inside the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    const box = await page.getByTestId('toast').first().boundingBox();
    const bar = await page.getByRole('tablist', { name: 'Panes' }).boundingBox();
    expect(box !== null && bar !== null && box.y + box.height <= bar.y && box.x >= 0).toBe(true);
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    await page.screenshot({ path: path.join(ARTIFACTS, 'rule-fired-toast-390.png') });
    await page.setViewportSize({ width: 1440, height: 900 });

    // The card says how long before it reached this screen the headline was published; hovering it
    // opens each stage in ms.
    const card = page.getByTestId('signal-card').first();
    const receipt = card.getByTestId('card-receipt');
    await expect.poll(() => receipt.innerText()).toMatch(/^published \d\.\d s before it reached you$/);
    await receipt.hover();
    await expect
      .poll(() => card.getByTestId('card-receipt-stages').innerText())
      .toMatch(
        /^published → received: \d{4} ms\nreceived → analysed: \d+ ms\nanalysed → sent: \d+ ms\nsent → reached you: -?\d+ ms$/,
      );
    await card.screenshot({ path: path.join(ARTIFACTS, 'receipt-card.png') });
    await page.mouse.move(0, 0);
    await card.screenshot({ path: path.join(ARTIFACTS, 'receipt-card-fired.png') });

    // A headline published 12 minutes ago fires nothing, and its card says why.
    const stale = await fetch(`${env.baseUrl}/api/signals/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        content: 'Solana ETF approved by the SEC, trading starts Monday',
        source_name: 'Relay',
        published_at: new Date(Date.now() - 12 * 60_000).toISOString(),
      }),
    });
    expect(stale.status).toBe(202);
    const staleCard = page.getByTestId('signal-card').filter({ hasText: 'Solana ETF approved by the SEC' });
    await expect
      .poll(() => staleCard.getByTestId('card-rule').innerText(), { timeout: 15_000 })
      .toBe('Rule SOL listings skipped: stale: published 12 min ago (max 15 s).');
    await expect
      .poll(() => staleCard.getByTestId('card-receipt').innerText())
      .toBe('published 12 min before it reached you');
    await staleCard.screenshot({ path: path.join(ARTIFACTS, 'receipt-card-stale.png') });
    // Held back: the same places, quieter.
    expect(await staleCard.getAttribute('data-rule')).toBe('skipped');
    await expect
      .poll(() =>
        page.getByTestId('toast').filter({ hasText: 'held back' }).first().getAttribute('data-tone'),
      )
      .toBe('quiet');
    await page.screenshot({ path: path.join(ARTIFACTS, 'rule-skipped-toast-1440.png') });

    await opener.click();
    await expect.poll(() => modal.getByTestId('ledger-row').nth(1).innerText()).toContain('fired');
    await expect
      .poll(() => modal.getByTestId('ledger-row').first().innerText())
      .toContain('skipped: stale: published 12 min ago (max 15 s)');
    await page.screenshot({ path: path.join(ARTIFACTS, 'rules-modal.png') });
    await modal.getByRole('button', { name: 'Stop all automated trading' }).click();
    await expect
      .poll(() => modal.getByTestId('kill-state').innerText())
      .toContain('Automated trading is OFF');
    expect(problems).toEqual([]);
    expect(offsite).toEqual([]);
  }, 120_000);
});
