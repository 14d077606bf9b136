import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, openPage, startE2e, type E2eEnv } from './support/browser';

/** Page object for the dashboard's market parts: header search, chart pane, terminal. */
class MarketPage {
  constructor(private readonly page: Page) {}

  header(): Promise<string> {
    return this.page.locator('header').innerText();
  }

  chartState(): Promise<string | null> {
    return this.page.locator('[data-testid="chart-body"]').getAttribute('data-state');
  }

  chartSymbol(): Promise<string> {
    return this.page.locator('[data-testid="chart-symbol"]').innerText();
  }

  async search(text: string): Promise<void> {
    const box = this.page.getByRole('combobox', { name: 'Search symbol' });
    await box.fill(text);
    await this.page.getByRole('option').first().waitFor();
    await box.press('Enter');
  }

  async command(line: string): Promise<void> {
    await this.page.locator('[data-testid="terminal"] .xterm').click();
    await this.page.keyboard.type(line);
    await this.page.keyboard.press('Enter');
  }

  /**
   * Shows fixture news signals on the chart through the app's own store (the signal store that feeds it
   * in production comes with the news module). Reaches the services through React's root fiber, so the
   * app carries no test hook.
   */
  showSignals(signals: unknown[]): Promise<void> {
    return this.page.evaluate((list) => {
      type Fiber = { memoizedProps?: { value?: unknown }; child: Fiber | null; sibling: Fiber | null };
      type Services = { stores: { market: { showSignals(s: unknown[]): void } } };
      const root = document.getElementById('root') as unknown as Record<string, Fiber>;
      const key = Object.keys(root).find((k) => k.startsWith('__reactContainer$')) ?? '';
      const stack: (Fiber | null | undefined)[] = [root[key]];
      while (stack.length > 0) {
        const fiber = stack.pop();
        if (fiber == null) continue;
        const value = fiber.memoizedProps?.value as Partial<Services> | undefined;
        if (value?.stores?.market !== undefined) {
          value.stores.market.showSignals(list);
          return;
        }
        stack.push(fiber.sibling, fiber.child);
      }
      throw new Error('app services not found');
    }, signals);
  }
}

describe('market data in the dashboard', () => {
  let env: E2eEnv;
  beforeAll(async () => {
    // No replayed item arrives during the test: each one would replace the fixture signals on the chart.
    env = await startE2e({ MARKET_SIM_TICK_MS: '250', REPLAY_INTERVAL_MS: '3600000' });
  });
  afterAll(async () => {
    await env?.close();
  });

  it('draws candles with a news marker, goes Live, and switches symbol by search and by command', async () => {
    const { page, problems, offsite, context } = await openPage(env);
    const klines: string[] = [];
    page.on('request', (req) => {
      if (req.url().includes('/api/klines')) klines.push(new URL(req.url()).search);
    });
    await page.goto(env.baseUrl + '/');
    const market = new MarketPage(page);
    await expect.poll(() => market.chartState(), { timeout: 15_000 }).toBe('ready');
    await page.locator('[data-testid="chart-body"] canvas').first().waitFor();
    await expect.poll(() => market.header()).toContain('Live');
    expect(await market.header()).toContain('SIMULATED PRICES');
    expect(klines[0]).toBe('?symbol=BTCUSDT&interval=15m&limit=500');

    // The last price follows the price socket.
    const first = await page.locator('[data-testid="chart-last"]').innerText();
    // BTC at its tick of 0.1.
    expect(first).toMatch(/^[\d,]+\.\d$/);
    await expect
      .poll(() => page.locator('[data-testid="chart-last"]').innerText(), { timeout: 10_000 })
      .not.toBe(first);

    const now = Date.now();
    await market.showSignals([
      {
        id: 'n1',
        assets: ['BTC'],
        sentiment: 'positive',
        headline: 'Spot ETF sees record inflows',
        receivedAt: now - 6 * 3_600_000,
      },
      {
        id: 'n2',
        assets: ['BTC', 'ETH'],
        sentiment: 'negative',
        headline: 'Exchange hack drains hot wallet',
        receivedAt: now - 2 * 3_600_000,
      },
      {
        id: 'n3',
        assets: ['SOL'],
        sentiment: 'positive',
        headline: 'Not about BTC',
        receivedAt: now - 3_600_000,
      },
    ]);
    const markers = page.locator('[data-testid="chart-markers"] li');
    await expect
      .poll(() => markers.allInnerTexts())
      .toEqual(['positive: Spot ETF sees record inflows', 'negative: Exchange hack drains hot wallet']);
    await page.waitForTimeout(300); // let the chart paint the markers
    await page.screenshot({ path: path.join(ARTIFACTS, 'market-chart.png') });

    await market.search('eth');
    await expect.poll(() => market.header()).toContain('ETH/USDT');
    expect(await market.chartSymbol()).toBe('ETH/USDT');
    await expect.poll(() => market.chartState()).toBe('ready');
    expect(klines).toContain('?symbol=ETHUSDT&interval=15m&limit=500');
    await expect.poll(() => markers.allInnerTexts()).toEqual(['negative: Exchange hack drains hot wallet']);

    await market.command('symbol sol');
    await expect.poll(() => market.chartSymbol()).toBe('SOL/USDT');
    await market.command('chart 1h');
    await expect
      .poll(() => page.locator('[data-testid="chart-body"]').getAttribute('data-interval'))
      .toBe('1h');
    await expect.poll(() => market.chartState()).toBe('ready');
    expect(klines).toContain('?symbol=SOLUSDT&interval=1h&limit=500');
    await market.command('doge');
    await expect.poll(() => market.chartSymbol()).toBe('DOGE/USDT');
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(ARTIFACTS, 'market-doge-1h.png') });

    expect(problems).toEqual([]);
    expect(offsite).toEqual([]);
    await context.close();
  });
});
