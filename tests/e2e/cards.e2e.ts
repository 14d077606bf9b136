import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractSymbolOf } from '../../src/contracts/symbols';
import { ARTIFACTS, openPage, startE2e, type E2eEnv } from './support/browser';
import { answerDialog, recordNativeDialogs } from './support/dialogs';
import { signUpAndLogInThroughUi } from './support/session';

/** The pair a coin trades as: its own, or its 1000-unit contract (PEPE → 1000PEPE/USDT). */
const pairOf = (ticker: string) =>
  `${(contractSymbolOf(ticker) ?? `${ticker}USDT`).replace(/USDT$/, '')}/USDT`;

/** Page object for the feed's cards and the terminal that trades them. */
class CardsPage {
  constructor(readonly page: Page) {}

  feed = () => this.page.getByTestId('feed-pane');
  cards = () => this.feed().getByTestId('signal-card');
  card = (id: string) => this.feed().locator(`[data-testid="signal-card"][data-id="${id}"]`);
  log = () => this.page.getByTestId('terminal-log').innerText();

  async type(text: string): Promise<void> {
    await this.page.locator('[data-testid="terminal"] .xterm').click();
    await this.page.keyboard.type(text);
  }

  async run(line: string): Promise<void> {
    await this.type(line);
    await this.page.keyboard.press('Enter');
  }

  /** The id of the n-th card on screen (from 1). */
  nthId = (n: number) =>
    this.cards()
      .nth(n - 1)
      .getAttribute('data-id');

  /** The first card on screen whose first asset is traded here: its id, that ticker and every ticker it names. */
  tradableCard(): Promise<{ id: string; ticker: string; named: string[] } | null> {
    return this.cards().evaluateAll((cards) => {
      for (const c of cards) {
        const tags = [...c.querySelectorAll('[data-testid="asset-tag"]')];
        const tag = tags[0];
        if (tag?.getAttribute('data-tradable') === 'true') {
          return {
            id: c.getAttribute('data-id') ?? '',
            ticker: tag.getAttribute('data-ticker') ?? '',
            named: tags.map((t) => t.getAttribute('data-ticker') ?? ''),
          };
        }
      }
      return null;
    });
  }

  /** The first asset of the n-th card on screen, or null (general news, or not analysed yet). */
  nthTicker = (n: number) =>
    this.cards()
      .nth(n - 1)
      .evaluate((c) => c.querySelector('[data-testid="asset-tag"]')?.getAttribute('data-ticker') ?? null);
}

describe('cards addressed by a stable id', () => {
  let env: E2eEnv;
  let context: BrowserContext;
  let page: Page;
  let ui: CardsPage;
  let problems: string[];

  beforeAll(async () => {
    env = await startE2e({ MARKET_SOURCE: 'sim', MARKET_SIM_TICK_MS: '250', REPLAY_INTERVAL_MS: '2500' });
    ({ context, page, problems } = await openPage(env));
    ui = new CardsPage(page);
    await page.goto(env.baseUrl + '/');
  });
  afterAll(async () => {
    await context?.close();
    await env?.close();
  });

  it('shows #id on every card, and #id long trades that card whatever arrived since', async () => {
    await signUpAndLogInThroughUi(page, 'cara@example.com', 'cara', 'cards pass 123');
    await expect.poll(() => ui.tradableCard(), { timeout: 20_000 }).not.toBeNull();
    // One read of the top card: a newer card may take its place between two reads.
    const [shown, id] = await ui
      .cards()
      .first()
      .evaluate((c) => [
        (c.querySelector('[data-testid="card-id"]') as HTMLElement | null)?.innerText ?? null,
        c.getAttribute('data-id'),
      ]);
    expect(shown).toBe(`#${id}`);
    const target = (await ui.tradableCard()) as { id: string; ticker: string; named: string[] };
    // Let newer signals push it down before trading it by its id.
    const top = await ui.nthId(1);
    await expect.poll(() => ui.nthId(1), { timeout: 20_000 }).not.toBe(top);
    await ui.run(`#${target.id} long 100`);
    await expect
      .poll(() => ui.log(), { timeout: 15_000 })
      .toContain(`Successfully placed LONG order for ${pairOf(target.ticker)}`);
    await expect
      .poll(() => page.locator(`[data-testid="position-row"]`).first().getAttribute('data-symbol'))
      .toContain(target.ticker);
    await ui.card(target.id).screenshot({ path: path.join(ARTIFACTS, 'card-id.png') });
    // The screenshot scrolled the card into view; a feed scrolled down holds its cards, so go back up.
    await ui
      .feed()
      .locator('.feed-list')
      .evaluate((el) => el.scrollTo({ top: 0 }));
  });

  it('#id short 100 <asset> trades the named asset, and refuses one the signal does not name', async () => {
    const target = (await ui.tradableCard()) as { id: string; ticker: string; named: string[] };
    await ui.run(`#${target.id} short 100 ${target.ticker.toLowerCase()}`);
    await expect
      .poll(() => ui.log(), { timeout: 15_000 })
      .toContain(`Successfully placed SHORT order for ${pairOf(target.ticker)}`);
    // An asset this card does not name: a headline may name several coins.
    const other = (['doge', 'xrp', 'ada', 'link'] as const).find(
      (t) => !target.named.includes(t.toUpperCase()),
    );
    if (!other) throw new Error(`card #${target.id} names every candidate: ${target.named.join(', ')}`);
    await ui.run(`#${target.id} short 100 ${other}`);
    await expect.poll(() => ui.log()).toContain(`not ${other.toUpperCase()}.`);
  });

  it('asks before sending when card 3 is another card than when the line was started', async () => {
    await ui.type('3 short 100');
    const was = await ui.nthId(3);
    // Wait for a newer signal to move another card with an asset into third place.
    await expect
      .poll(async () => (await ui.nthId(3)) !== was && (await ui.nthTicker(3)) !== null, { timeout: 30_000 })
      .toBe(true);
    await page.keyboard.press('Enter');
    const screen = () => page.locator('[data-testid="terminal"] .xterm-rows').innerText();
    // The card it was is the one on screen when the first key was typed (one may have come in since).
    const asked = /Card3isnow\S*?#(\d+),was.*?#(\d+):place\?\[y\/N\]/;
    await expect.poll(async () => (await screen()).replace(/\s+/g, ''), { timeout: 10_000 }).toMatch(asked);
    const [, now, before] = asked.exec((await screen()).replace(/\s+/g, '')) ?? [];
    expect(now).not.toBe(before);
    expect(Number(before)).toBeLessThanOrEqual(Number(was));
    await page.locator('#terminal').screenshot({ path: path.join(ARTIFACTS, 'card-moved-question.png') });
    const orders = (await ui.log()).split('Successfully placed').length;
    await page.keyboard.type('n');
    await page.keyboard.press('Enter');
    // The transcript keeps the question with its answer.
    await expect
      .poll(() => ui.log())
      .toMatch(
        new RegExp(`Card 3 is now \\S+ #${now}, was [^:]*#${before}: place\\? \\[y/N\\] n\\nCancelled\\.`),
      );
    expect((await ui.log()).split('Successfully placed').length).toBe(orders);
    expect(problems).toEqual([]);
  });

  it("Close All asks in the app's own dialog with every position and the total PnL, then is disabled", async () => {
    const native = recordNativeDialogs(page);
    const closeAll = page.getByRole('button', { name: 'Close All' });
    // The tests above may have traded one symbol twice (long then short nets to nothing): open two
    // positions here on symbols that hold none (rows name them BTC/USDT), so this test does not depend
    // on which cards came first.
    const rows = page.getByTestId('position-row');
    const symbols = () =>
      rows.evaluateAll((rs) => rs.map((r) => r.getAttribute('data-symbol') ?? '').join(' '));
    const held = await symbols();
    const fresh = ['BTC', 'ETH', 'SOL', 'XRP'].filter((t) => !held.includes(`${t}/USDT`)).slice(0, 2);
    for (const ticker of fresh) {
      // A symbol the tests above traded to nothing has a fill of its own in the log already: wait for
      // one more, so the next order is not typed while this one is still under way.
      const fills = async () => (await ui.log()).split(new RegExp(`Filled LONG [\\d.]+ ${ticker} `)).length;
      const before = await fills();
      await ui.run(`${ticker.toLowerCase()} long 100`);
      await expect.poll(fills, { timeout: 15_000 }).toBe(before + 1);
    }
    const open = held.split(' ').filter(Boolean).length + fresh.length;
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(open);
    await closeAll.click();
    await page
      .getByTestId('confirm-dialog')
      .screenshot({ path: path.join(ARTIFACTS, 'close-all-dialog.png') });
    const asked = await answerDialog(page, true);
    expect(asked.message).toBe(
      `Are you sure you want to close all ${open} open positions? This action cannot be undone.`,
    );
    expect(asked.details).toHaveLength(open + 1);
    expect(asked.details[open]).toMatch(/^Total unrealized PnL [+-]?[\d,.]+ USDT$/);
    // The outcome is the app's own notice too; OK gives focus back to the pane.
    await answerDialog(page, true);
    await expect.poll(() => page.getByTestId('position-row').count()).toBe(0);
    expect(await closeAll.isDisabled()).toBe(true);
    expect(native).toEqual([]);
  });
});
