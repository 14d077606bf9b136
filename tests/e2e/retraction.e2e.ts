import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IngestResponse } from '../../src/contracts/signals';
import { ARTIFACTS, openPage, startE2e, type E2eEnv } from './support/browser';
import { signUpAndLogInThroughUi } from './support/session';

const TOKEN = 'e2e-ingest-token-retraction-0123456789';

/** Page object for the feed's cards. */
class Feed {
  constructor(readonly page: Page) {}
  card = (id: string) => this.page.locator(`[data-testid="signal-card"][data-id="${id}"]`);
  status = (id: string) => this.card(id).getAttribute('data-status');
  mark = (id: string) => this.card(id).getByTestId('card-retracted');
}

describe('a retraction in an open browser', () => {
  let env: E2eEnv;
  const contexts: BrowserContext[] = [];
  const problems: string[][] = [];
  const offsite: string[][] = [];
  let feeds: Feed[];

  /** Posts one item through the webhook; answers its signal id. */
  async function post(content: string, source_name: string, username?: string): Promise<string> {
    const res = await fetch(`${env.baseUrl}/api/signals/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content, source_name, ...(username === undefined ? {} : { username }) }),
    });
    expect(res.status).toBe(202);
    const [result] = IngestResponse.parse(await res.json()).results;
    expect(result?.result).toBe('created');
    return result?.id ?? '';
  }

  beforeAll(async () => {
    env = await startE2e({ MARKET_SOURCE: 'sim', NEWS_SOURCES: 'webhook', INGEST_TOKEN: TOKEN });
    feeds = [];
    // Two browsers, each with its own stream: every open feed marks the card.
    for (let i = 0; i < 2; i++) {
      const opened = await openPage(env);
      contexts.push(opened.context);
      problems.push(opened.problems);
      offsite.push(opened.offsite);
      await opened.page.goto(env.baseUrl + '/');
      feeds.push(new Feed(opened.page));
    }
  });
  afterAll(async () => {
    for (const c of contexts) await c.close();
    await env?.close();
  });

  it('marks the rumour RETRACTED when its denial arrives, and the denial links back to it', async () => {
    for (const f of feeds) {
      await expect
        .poll(() => f.page.getByTestId('live-indicator').innerText(), { timeout: 30_000 })
        .toBe('Live');
    }
    const rumour = await post(
      'BREAKING: SEC approves spot #Bitcoin ETFs for listing on all registered exchanges $BTC',
      'X',
      'SECGov',
    );
    for (const f of feeds) await expect.poll(() => f.status(rumour), { timeout: 15_000 }).toBe('completed');
    // Another story about the same coin retracts nothing.
    const other = await post('BTC futures open interest climbs to a record $30B as price swings', 'CoinDesk');
    for (const f of feeds) await expect.poll(() => f.status(other), { timeout: 15_000 }).toBe('completed');
    expect(await feeds[0]!.mark(rumour).count()).toBe(0);

    const denial = await post(
      'The @SECGov X account was compromised and an unauthorized post went out. The SEC has not approved spot bitcoin ETFs.',
      'SEC.gov',
    );
    for (const f of feeds) {
      await expect.poll(() => f.mark(rumour).count(), { timeout: 15_000 }).toBe(1);
      expect(await f.mark(rumour).innerText()).toContain('RETRACTED');
      expect(await f.card(denial).getByTestId('card-retracts').innerText()).toBe(`retracts #${rumour}`);
      expect(await f.mark(other).count()).toBe(0);
      expect(await f.card(denial).getByTestId('card-retracted').count()).toBe(0);
    }
    const [first] = feeds;
    // Hovering the mark shows the denial's own words.
    await first!.mark(rumour).hover();
    const tip = first!.mark(rumour).getByRole('tooltip');
    await expect.poll(() => tip.isVisible()).toBe(true);
    expect(await tip.innerText()).toBe(
      `Retracted by #${denial} (hacked or unauthorized account): The @SECGov X account was compromised and an unauthorized post went out. The SEC has not approved spot bitcoin ETFs.`,
    );
    await first!.page
      .getByTestId('feed-pane')
      .screenshot({ path: path.join(ARTIFACTS, 'feed-retracted.png') });
    // The link on the denial focuses the card it retracts.
    await first!.card(denial).getByTestId('card-retracts').click();
    await expect.poll(() => first!.card(rumour).getAttribute('aria-current')).toBe('true');
    for (const p of problems) expect(p).toEqual([]);
    for (const o of offsite) expect(o).toEqual([]);
  });
  it('a weaker source only disputes: the card says DISPUTED, a holder gets a toast that stays, and its Close closes the position', async () => {
    const opened = await openPage(env);
    contexts.push(opened.context);
    const { page } = opened;
    await page.goto(env.baseUrl + '/');
    await signUpAndLogInThroughUi(page, 'dee@example.com', 'dee', 'dispute pass 1');
    await expect.poll(() => page.getByTestId('positions').innerText()).toContain('No open positions.');
    await page.locator('[data-testid="terminal"] .xterm').click();
    await page.keyboard.type('ltc long 200');
    await page.keyboard.press('Enter');
    const row = page.locator('[data-testid="position-row"][data-symbol="LTC/USDT"]');
    await expect.poll(() => row.count(), { timeout: 15_000 }).toBe(1);

    const feed = new Feed(page);
    const story = await post(
      'Asset manager registers a Litecoin spot trust in Delaware, state records show $LTC',
      'Reuters',
    );
    await expect.poll(() => feed.status(story), { timeout: 15_000 }).toBe('completed');
    await post(
      'The Delaware Litecoin trust registration is fake, the asset manager told reporters $LTC',
      'X',
      'xrp_insider',
    );
    await expect.poll(() => feed.mark(story).count(), { timeout: 15_000 }).toBe(1);
    expect(await feed.mark(story).innerText()).toContain('DISPUTED');
    const toast = page.getByTestId('toast').filter({ hasText: 'Disputed by' });
    await expect.poll(() => toast.count(), { timeout: 15_000 }).toBe(1);
    expect(await toast.innerText()).toContain('Nothing was closed.');
    // Nothing was closed: the position is still there while the toast waits.
    expect(await row.count()).toBe(1);
    await page.screenshot({ path: path.join(ARTIFACTS, 'feed-disputed-toast.png') });
    await toast.getByRole('button', { name: /Close/ }).click();
    await expect.poll(() => row.count(), { timeout: 15_000 }).toBe(0);
    expect(opened.problems).toEqual([]);
    expect(opened.offsite).toEqual([]);
  });
});
