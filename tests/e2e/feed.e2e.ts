import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, openPage, startE2e, type E2eEnv } from './support/browser';
import { signUpAndLogInThroughUi } from './support/session';

/** Records every status each card showed (MutationObserver) and every notification raised. */
const RECORDERS = `
  window.__statuses = {};
  window.__notes = [];
  const record = (el) => {
    if (!(el instanceof HTMLElement) || el.dataset.testid !== 'signal-card') return;
    const seen = (window.__statuses[el.dataset.id] ??= []);
    if (seen[seen.length - 1] !== el.dataset.status) seen.push(el.dataset.status);
  };
  new MutationObserver((changes) => {
    for (const c of changes) {
      record(c.target);
      for (const n of c.addedNodes) {
        record(n);
        if (n instanceof HTMLElement) n.querySelectorAll('[data-testid="signal-card"]').forEach(record);
      }
    }
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-status'] });
  if (typeof Notification === 'function') {
    const Real = Notification;
    class Recorded extends Real {
      constructor(title, options) {
        window.__notes.push({ title, body: options && options.body });
        super(title, options);
      }
    }
    Object.defineProperty(Recorded, 'permission', { get: () => Real.permission });
    Recorded.requestPermission = (...args) => Real.requestPermission(...args);
    window.Notification = Recorded;
  }
`;

/** Page object for the feed pane, the terminal and the alerts modal. */
class FeedPage {
  constructor(readonly page: Page) {}

  feed = () => this.page.getByTestId('feed-pane');
  cards = () => this.feed().getByTestId('signal-card');
  card = (id: string) => this.feed().locator(`[data-testid="signal-card"][data-id="${id}"]`);
  log = () => this.page.getByTestId('terminal-log').innerText();

  signUpAndLogIn(email: string, username: string, password: string): Promise<void> {
    return signUpAndLogInThroughUi(this.page, email, username, password);
  }

  async run(line: string): Promise<void> {
    await this.page.locator('[data-testid="terminal"] .xterm').click();
    await this.page.keyboard.type(line);
    await this.page.keyboard.press('Enter');
  }

  /** The sentiment words and impacts of the cards on screen (completed ones). */
  async shown(): Promise<{ sentiment: string; impact: number }[]> {
    const sentiments = await this.feed().getByTestId('card-sentiment').allInnerTexts();
    const impacts = await this.feed().getByTestId('card-impact').allInnerTexts();
    return sentiments.map((sentiment, i) => ({
      sentiment,
      impact: Number((impacts[i] ?? '').replace('Impact ', '')),
    }));
  }

  async setMinImpact(value: number): Promise<void> {
    await this.feed().getByRole('slider', { name: 'Min Impact' }).fill(String(value));
  }
}

describe('the feed in the browser', () => {
  let env: E2eEnv;
  let context: BrowserContext;
  let page: Page;
  let ui: FeedPage;
  let problems: string[];
  let offsite: string[];

  beforeAll(async () => {
    env = await startE2e({ MARKET_SOURCE: 'sim', MARKET_SIM_TICK_MS: '250', REPLAY_INTERVAL_MS: '900' });
    ({ context, page, problems, offsite } = await openPage(env));
    await context.grantPermissions(['notifications'], { origin: env.baseUrl });
    await page.addInitScript(RECORDERS);
    ui = new FeedPage(page);
    await page.goto(env.baseUrl + '/');
  });
  afterAll(async () => {
    await context?.close();
    await env?.close();
  });

  it('shows a replayed signal analyzing, then completed in place, and says Live', async () => {
    await expect.poll(() => page.getByTestId('live-indicator').innerText(), { timeout: 15_000 }).toBe('Live');
    const seenBoth = async () => {
      const statuses = (await page.evaluate('window.__statuses')) as Record<string, string[]>;
      return Object.entries(statuses).find(([, s]) => s.join(',') === 'analyzing,completed')?.[0] ?? null;
    };
    await expect.poll(seenBoth, { timeout: 20_000 }).not.toBeNull();
    const id = (await seenBoth()) as string;
    const card = ui.card(id);
    expect(await card.getAttribute('data-status')).toBe('completed');
    expect(await card.getByTestId('card-impact').innerText()).toMatch(/^Impact \d+\.\d{2}$/);
    expect(await card.getByTestId('card-time').innerText()).toMatch(/^(just now|\d+s ago)$/);
    const stored = await page.evaluate(
      () => JSON.parse(localStorage.getItem('cryptoNewsSignals') ?? '[]') as { id: string }[],
    );
    await expect
      .poll(async () => {
        const again = await page.evaluate(
          () => JSON.parse(localStorage.getItem('cryptoNewsSignals') ?? '[]') as { id: string }[],
        );
        return again.some((s) => s.id === id);
      })
      .toBe(true);
    expect(stored.length).toBeLessThanOrEqual(50);
    await ui.feed().screenshot({ path: path.join(ARTIFACTS, 'feed-live.png') });
  });

  it('falls back to a page EventSource where SharedWorker is missing', async () => {
    const bare = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      await bare.addInitScript('Object.defineProperty(window, "SharedWorker", { value: undefined });');
      const tab = await bare.newPage();
      const streams: string[] = [];
      tab.on('request', (r) => {
        if (r.url().includes('/api/signals/stream')) streams.push(r.url());
      });
      await tab.goto(env.baseUrl + '/');
      await expect
        .poll(() => tab.getByTestId('live-indicator').innerText(), { timeout: 15_000 })
        .toBe('Live');
      expect(streams).toEqual([`${env.baseUrl}/api/signals/stream`]);
      // The feed is full from the start (a backfill of 50), so a live item shows as a new card on top.
      const first = () => tab.getByTestId('signal-card').first().getAttribute('data-id');
      const before = await first();
      await expect.poll(first, { timeout: 15_000 }).not.toBe(before);
    } finally {
      await bare.close();
    }
  });

  it('filters by sentiment and Min Impact; My Watchlist is disabled for a guest', async () => {
    await expect.poll(async () => (await ui.shown()).length, { timeout: 20_000 }).toBeGreaterThan(4);
    expect(await ui.feed().getByRole('tab', { name: 'My Watchlist' }).isDisabled()).toBe(true);

    await ui.feed().getByRole('button', { name: 'Negative' }).click();
    const negatives = await ui.shown();
    expect(negatives.every((c) => c.sentiment === 'NEGATIVE')).toBe(true);
    expect(await ui.feed().getByTestId('card-analyzing').count()).toBe(0);
    await ui.feed().getByRole('button', { name: 'Positive' }).click();
    expect((await ui.shown()).every((c) => c.sentiment === 'POSITIVE')).toBe(true);
    await ui.feed().getByRole('button', { name: 'Positive' }).click();

    await ui.setMinImpact(40);
    expect(await ui.feed().getByTestId('min-impact').innerText()).toBe('40');
    const strong = await ui.shown();
    expect(strong.every((c) => c.impact >= 40)).toBe(true);
    await ui.setMinImpact(0);
    expect((await ui.shown()).some((c) => c.impact < 40)).toBe(true);
  });

  it('watch and unwatch round-trip the server, and My Watchlist shows the watched asset', async () => {
    await ui.signUpAndLogIn('fay@example.com', 'fay', 'feed pass 123');
    // A coin of the symbol list (other known coins are tagged without a watch toggle).
    const ticker = (await ui
      .feed()
      .getByTestId('watch-toggle')
      .first()
      .getAttribute('data-ticker')) as string;
    const toggle = ui.feed().locator(`[data-testid="watch-toggle"][data-ticker="${ticker}"]`).first();
    await toggle.click();
    await expect.poll(() => toggle.innerText()).toBe('✓');
    await ui.run('watchlist');
    await expect.poll(() => ui.log()).toContain(`Watchlist: ${ticker}`);

    await ui.feed().getByRole('tab', { name: 'My Watchlist' }).click();
    const tickers = await ui
      .feed()
      .getByTestId('signal-card')
      .evaluateAll((cards) =>
        cards.map((c) =>
          [...c.querySelectorAll('[data-testid="asset-tag"]')].map((t) => t.getAttribute('data-ticker')),
        ),
      );
    expect(tickers.length).toBeGreaterThan(0);
    expect(tickers.every((list) => list.includes(ticker))).toBe(true);
    await ui.feed().screenshot({ path: path.join(ARTIFACTS, 'feed-watchlist.png') });

    await ui.run(`unwatch ${ticker.toLowerCase()}`);
    await expect.poll(() => ui.log()).toContain(`Stopped watching ${ticker}.`);
    await expect
      .poll(() => ui.feed().getByTestId('feed-empty').innerText())
      .toBe('No signals match these filters.');
    await ui.feed().getByRole('tab', { name: 'All News' }).click();
    await ui.run('watchlist');
    await expect.poll(() => ui.log()).toContain('Your watchlist is empty.');
  });

  it('feed filter --exclude hides the cards with the word at once, and feed filter clear brings them back', async () => {
    // Signed in (fay, above): the filter is saved on the account.
    const card = ui.cards().first();
    const id = (await card.getAttribute('data-id')) as string;
    const text = await card.getByTestId('card-content').innerText();
    const word = (text.match(/\p{L}{5,}/gu) ?? []).sort((a, b) => b.length - a.length)[0] as string;
    expect(word).toBeDefined();
    await ui.run(`feed filter --exclude ${word.toLowerCase()}`);
    await expect.poll(() => ui.log()).toContain(`Feed filter saved: exclude "${word.toLowerCase()}"`);
    await expect.poll(() => ui.card(id).count()).toBe(0);
    await expect
      .poll(() => ui.feed().getByTestId('feed-filter-button').innerText())
      .toMatch(/^Words · \d+ hidden$/);
    await ui.feed().getByTestId('feed-filter-button').click();
    expect(await ui.feed().getByLabel('Exclude words').inputValue()).toBe(word.toLowerCase());
    await ui.feed().screenshot({ path: path.join(ARTIFACTS, 'feed-word-filter.png') });
    await ui.feed().getByTestId('feed-filter-button').click();
    await ui.run('feed filter clear');
    await expect.poll(() => ui.log()).toContain('Feed filter cleared: every signal shows.');
    await expect.poll(() => ui.card(id).count()).toBe(1);
    expect(await ui.feed().getByTestId('feed-filter-button').innerText()).toBe('Words');
  });

  it('places a paper order from the quick-trade popover of an asset tag', async () => {
    const message = page.getByTestId('toast').filter({ hasText: 'Successfully placed' });
    for (let attempt = 0; attempt < 5 && (await message.count()) === 0; attempt += 1) {
      // The list moves as news arrives; hover the newest tag of a coin traded here and click at once.
      const tag = ui.feed().locator('[data-testid="asset-tag"][data-tradable="true"]').first();
      await tag.hover();
      const popover = ui.feed().getByTestId('quick-trade');
      await popover.waitFor({ timeout: 2_000 }).catch(() => undefined);
      if ((await popover.count()) === 0) continue;
      if (attempt === 0) await ui.feed().screenshot({ path: path.join(ARTIFACTS, 'feed-popover.png') });
      expect(await popover.locator('.quick-trade-row.long button').allInnerTexts()).toEqual([
        '100',
        '250',
        '1k',
        '5k',
      ]);
      await popover
        .locator('.quick-trade-row.long button', { hasText: /^250$/ })
        .click({ timeout: 2_000 })
        .catch(() => undefined);
      await message.waitFor({ timeout: 5_000 }).catch(() => undefined);
    }
    // A toast in the spec's words, then what filled (quantity and notional), in the terminal's words.
    expect(await message.innerText()).toMatch(
      /^Successfully placed LONG order for ([0-9A-Z]+)\/USDT with 250 USDT\. Filled LONG [\d.]+ \1 ≈ [\d,.]+ USDT of \1\/USDT at [\d,.]+, fee [\d.]+ USDT\./,
    );
    const pair = /for ([0-9A-Z]+\/USDT)/.exec(await message.innerText())?.[1];
    await expect
      .poll(() => page.locator(`[data-testid="position-row"][data-symbol="${pair}"]`).count(), {
        timeout: 10_000,
      })
      .toBe(1);
  });

  it('shows a stablecoin the news is about muted, with no change and no popover, and refuses to trade it', async () => {
    // The replay's stablecoin news (Circle's IPO, a USDT mint, USDC payouts) keeps coming round.
    const stable = ui.feed().locator('[data-testid="asset-tag"].stablecoin').first();
    await stable.waitFor({ timeout: 30_000 });
    const [ticker, id] = await stable.evaluate((t) => [
      t.getAttribute('data-ticker') ?? '',
      t.closest('[data-testid="signal-card"]')?.getAttribute('data-id') ?? '',
    ]);
    const card = ui.card(id);
    const tag = card.locator(`[data-testid="asset-tag"][data-ticker="${ticker}"]`);
    expect(await tag.getAttribute('title')).toBe(`${ticker} is a stablecoin: shown, not traded`);
    expect(await tag.getAttribute('data-tradable')).toBe('false');
    expect(await tag.getByTestId('tag-change').count()).toBe(0);
    await tag.hover();
    await new Promise((r) => setTimeout(r, 300));
    expect(await ui.feed().getByTestId('quick-trade').count()).toBe(0);
    await card.screenshot({ path: path.join(ARTIFACTS, 'feed-stablecoin-tag.png') });
    await ui.run(`#${id} long 100 ${ticker.toLowerCase()}`);
    await expect
      .poll(() => ui.log(), { timeout: 5_000 })
      .toContain(`${ticker} has no futures contract here.`);
  });

  it('fires a high-impact alert: highlight and a browser notification', async () => {
    // A list scrolled down (hovering a card further down does it) holds new cards back behind "N new":
    // start at the top, where they arrive and their highlight shows.
    await ui
      .feed()
      .locator('.feed-list')
      .evaluate((el) => el.scrollTo({ top: 0 }));
    await ui.feed().getByRole('button', { name: 'Alerts' }).click();
    const modal = page.getByRole('dialog', { name: 'Notifications & Alerts' });
    await modal.getByRole('slider', { name: 'Impact threshold' }).fill('50');
    await modal.getByLabel('Browser notifications').check();
    await expect
      .poll(() => modal.getByTestId('alerts-message').innerText())
      .toBe('Browser notifications on.');
    expect(await modal.getByTestId('threshold').innerText()).toBe('50');
    await modal.screenshot({ path: path.join(ARTIFACTS, 'feed-alerts-modal.png') });
    await modal.getByRole('button', { name: 'Close' }).click();
    const settings = await page.evaluate(
      () => JSON.parse(localStorage.getItem('notificationSettings') ?? '{}') as object,
    );
    expect(settings).toEqual({
      enableVisualHighlights: true,
      isSoundEnabled: true,
      isNotificationEnabled: true,
      notificationImpactThreshold: 50,
    });

    const notes = () => page.evaluate('window.__notes') as Promise<{ title: string; body: string }[]>;
    await expect.poll(async () => (await notes()).length, { timeout: 45_000 }).toBeGreaterThan(0);
    const [first] = await notes();
    expect(first?.title).toMatch(/^High-Impact (POSITIVE|NEGATIVE|NEUTRAL) Alert! \(([0-9A-Z]+|General)\)$/);
    expect(first?.body.length).toBeLessThanOrEqual(150);
    await expect.poll(() => ui.feed().locator('.card.highlighted').count()).toBeGreaterThan(0);
    await ui.feed().screenshot({ path: path.join(ARTIFACTS, 'feed-alert.png') });
    expect(problems).toEqual([]);
    expect(offsite).toEqual([]);
  });

  it('holds what the reader reads: scrolled down, new cards wait behind "N new ↑", which brings them in at the top', async () => {
    await page.locator('[data-testid="terminal"] .xterm').click();
    const list = ui.feed().locator('.feed-list');
    const firstId = () => ui.cards().first().getAttribute('data-id');
    await list.evaluate((el) => el.scrollTo({ top: 300 }));
    const top = await firstId();
    const pill = ui.feed().getByTestId('feed-new');
    await expect.poll(() => pill.count(), { timeout: 20_000 }).toBe(1);
    expect(await pill.innerText()).toMatch(/^\d+ new ↑$/);
    // What was read has not moved: the same card heads the list, the scroll is where it was.
    expect(await firstId()).toBe(top);
    expect(await list.evaluate((el) => el.scrollTop)).toBeGreaterThan(250);
    await ui.feed().screenshot({ path: path.join(ARTIFACTS, 'feed-new-pill.png') });
    await page.screenshot({
      path: path.join(process.env.SHOTS_DIR ?? ARTIFACTS, 'terminal-feed-pill-1440.png'),
    });
    await pill.click();
    await expect.poll(() => list.evaluate((el) => el.scrollTop)).toBe(0);
    await expect.poll(firstId).not.toBe(top);
    await expect.poll(() => pill.count()).toBe(0);

    // Focus on a card holds it too, at the top: the focus ring stays on what it was on.
    await ui.cards().first().getByTestId('card-id').click();
    const held = await firstId();
    await expect.poll(() => pill.count(), { timeout: 20_000 }).toBe(1);
    expect(await firstId()).toBe(held);
    // Focus elsewhere, at the top: the new cards come in.
    await page.locator('[data-testid="terminal"] .xterm').click();
    await expect.poll(() => pill.count()).toBe(0);
    await expect.poll(firstId).not.toBe(held);
  });
});
