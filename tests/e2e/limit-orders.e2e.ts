import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBinanceDouble, type BinanceDouble } from '../fixtures/binance-double';
import { ARTIFACTS, openPage, startE2e, type E2eEnv } from './support/browser';
import { signUpAndLogInThroughUi } from './support/session';

/** Where the screenshots go (`SHOTS_DIR`, or the artifacts folder). */
const SHOTS = process.env.SHOTS_DIR ?? ARTIFACTS;

/** Page object for limit orders: the command line, the Open Orders tab and the Open Positions pane. */
class LimitPage {
  constructor(private readonly page: Page) {}

  async typeInTerminal(text: string): Promise<void> {
    await this.page.locator('[data-testid="terminal"] .xterm').click();
    await this.page.keyboard.type(text);
  }

  async run(text: string): Promise<void> {
    await this.typeInTerminal(text);
    await this.page.keyboard.press('Enter');
  }

  log = () => this.page.getByTestId('terminal-log').innerText();
  preview = () => this.page.getByTestId('order-preview').innerText();
  tab = (name: string | RegExp) =>
    this.page.getByRole('tablist', { name: 'Bottom panel' }).getByRole('tab', { name });
  orders = () => this.page.getByTestId('open-order-row');
  orderRows = () => this.orders().allInnerTexts();
  position = (symbol: string) => this.page.locator(`[data-testid="position-row"][data-symbol="${symbol}"]`);

  async shot(name: string): Promise<void> {
    await this.page.screenshot({ path: path.join(SHOTS, `limit-${name}.png`) });
  }
}

describe('limit orders in the browser', () => {
  let env: E2eEnv;
  let double: BinanceDouble;

  /** Trades and marks BTC at `price` on the venue's double: the server's paper book sees it cross. */
  const priceAt = (price: number) => {
    double.prices.set('BTCUSDT', price);
    double.marks.set('BTCUSDT', price);
    double.tick();
    double.markPrice();
  };

  beforeAll(async () => {
    await mkdir(SHOTS, { recursive: true });
    double = await startBinanceDouble({ BTCUSDT: 97_000, ETHUSDT: 3_400 });
    env = await startE2e({
      MARKET_SOURCE: 'binance',
      BINANCE_FAPI_URL: double.restUrl,
      BINANCE_FSTREAM_URL: double.streamUrl,
    });
  });
  afterAll(async () => {
    await env?.close();
    await double?.close();
  });

  it('rests a limit typed at the prompt, fills it when the price crosses, and cancels another with cx btc', async () => {
    const { page, problems, offsite, context } = await openPage(env);
    const ui = new LimitPage(page);
    await page.goto(env.baseUrl + '/');
    await page.waitForSelector('[data-testid="terminal"] .xterm');
    await signUpAndLogInThroughUi(page, 'lima@example.com', 'lima', 'limit pass 1');
    await expect.poll(() => page.getByTestId('positions').innerText()).toContain('No open positions.');
    await expect.poll(() => page.getByTestId('positions-live').innerText()).toBe('Live');
    priceAt(97_000);

    // Before Enter: sized at the limit price, resting, with the maker fee.
    await ui.typeInTerminal('btc long 5k @ 96000');
    await expect
      .poll(() => ui.preview())
      .toMatch(
        /LONG 0\.052 BTC ≈ 4,992\.00 USDT of BTC\/USDT at 96,000\.0+ limit GTC: rests until the price reaches 96,000\.0 · margin 499\.20 · liq\. [\d,.]+ · maker fee 1\.00 · 10x/,
      );
    await page.keyboard.press('Enter');
    await expect
      .poll(() => ui.log())
      .toContain('Resting: BUY 0.052 BTC/USDT @ 96,000.0 GTC on Paper account');

    // The Open Orders tab shows it, live from the socket, with its count on the tab.
    await ui.tab(/^Open Orders/).click();
    await expect
      .poll(() => ui.orderRows())
      .toEqual([expect.stringMatching(/BTC\/USDT\s+BUY\s+96,000\.0\s+0\.052\s+0\s+GTC/)]);
    await expect.poll(() => ui.tab(/^Open Orders/).innerText()).toMatch(/Open Orders\s*1/);
    await ui.shot('resting-1440');

    // The price trades down through it: it fills at its price, and the position appears.
    priceAt(96_500);
    await page.waitForTimeout(300);
    expect(await ui.orders().count()).toBe(1);
    priceAt(95_990);
    await expect.poll(() => ui.orders().count()).toBe(0);
    await expect.poll(() => page.getByTestId('open-orders').innerText()).toContain('No open orders.');
    await expect
      .poll(() => ui.log())
      .toContain('Limit filled: BUY 0.052 BTC/USDT @ 96,000.0, maker fee 1.00 USDT.');
    await ui.tab(/^Positions/).click();
    await expect.poll(() => ui.position('BTC/USDT').count()).toBe(1);
    expect(await ui.position('BTC/USDT').locator('td').nth(3).innerText()).toBe('96,000.0');
    await ui.shot('filled-1440');

    // Another rests, and cx btc cancels it with the server's answer.
    await ui.run('btc long 1k @ 90000');
    await expect
      .poll(() => ui.log())
      .toContain('Resting: BUY 0.011 BTC/USDT @ 90,000.0 GTC on Paper account');
    await ui.tab(/^Open Orders/).click();
    await expect.poll(() => ui.orders().count()).toBe(1);
    await ui.run('cx btc');
    await expect.poll(() => ui.log()).toContain('Cancelled: BUY 0.011 BTC/USDT @ 90,000.0 GTC.');
    await expect.poll(() => ui.orders().count()).toBe(0);

    // On a phone (390 px): the tab fits the width, and its Cancel button cancels.
    await ui.run('btc short 2k @ 101000 post');
    await expect
      .poll(() => ui.log())
      .toContain('Resting: SELL 0.02 BTC/USDT @ 101,000.0 POST on Paper account');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('tablist', { name: 'Panes' }).getByRole('tab', { name: 'Positions' }).click();
    await ui.tab(/^Open Orders/).click();
    await expect.poll(() => ui.orders().count()).toBe(1);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await ui.shot('resting-390');
    await ui
      .orders()
      .first()
      .getByRole('button', { name: /^Cancel sell BTC\/USDT/ })
      .click();
    await expect.poll(() => ui.orders().count()).toBe(0);

    // The trade panel places one too, with the Market/Limit switch.
    await page.setViewportSize({ width: 1440, height: 900 });
    await ui.tab(/^Trade$/).click();
    const panel = page.getByTestId('trade-panel');
    await panel.getByRole('button', { name: 'Limit' }).click();
    await panel.getByLabel('Total (USDT)').fill('500');
    await panel.getByTestId('trade-limit-price').fill('93000');
    await expect.poll(() => panel.getByTestId('trade-sizing').innerText()).toContain('0.005 BTC');
    await ui.shot('panel-1440');
    await panel.getByRole('button', { name: 'Buy / Long' }).click();
    await expect
      .poll(() => panel.getByTestId('trade-status').innerText())
      .toContain('Resting: BUY 0.005 BTC/USDT @ 93,000.0 GTC on Paper account.');
    await ui.tab(/^Open Orders/).click();
    await expect.poll(() => ui.orders().count()).toBe(1);
    await page.getByTestId('open-orders').getByRole('button', { name: 'Cancel all' }).click();
    await expect.poll(() => ui.orders().count()).toBe(0);

    expect(problems).toEqual([]);
    expect(offsite).toEqual([]);
    await context.close();
  });
});
