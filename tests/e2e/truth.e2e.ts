import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, openPage, startE2e, type E2eEnv } from './support/browser';
import { signUpAndLogInThroughUi } from './support/session';

/** BTC/USDT's lot step and minimum order (Binance USD-M). */
const STEP = 0.001;
const MIN = 100;

const num = (text: string): number => Number(text.replaceAll(',', ''));

/** `0.002 BTC ≈ 201.37 USDT of BTC/USDT at 100,683.1000` → its numbers. */
function sized(text: string): { quantity: number; notional: number; price: number } {
  const m = /([\d.]+) BTC ≈ ([\d,.]+) USDT of BTC\/USDT at ([\d,.]+)/.exec(text);
  if (!m) throw new Error(`no sized order in: ${text}`);
  return { quantity: num(m[1]!), notional: num(m[2]!), price: num(m[3]!) };
}

/** The size an honest order has: the nearest whole step to the amount at that price. */
function expectNearest(amount: number, s: { quantity: number; notional: number; price: number }): void {
  const steps = Math.round(amount / s.price / STEP);
  expect(s.quantity).toBeCloseTo(Math.max(steps, Math.ceil(MIN / s.price / STEP)) * STEP, 9);
  expect(s.notional).toBeCloseTo(s.quantity * s.price, 1);
  expect(Math.abs(s.notional - amount)).toBeLessThanOrEqual((STEP * s.price) / 2 + 0.01);
}

/** Page object: the command line and its preview, the terminal log and the trade panel. */
class TruthPage {
  constructor(private readonly page: Page) {}

  async typeLine(text: string): Promise<void> {
    await this.page.locator('[data-testid="terminal"] .xterm').click();
    await this.page.keyboard.type(text);
  }

  preview = () => this.page.getByTestId('order-preview').innerText();
  log = () => this.page.getByTestId('terminal-log').innerText();
  panel = () => this.page.getByTestId('trade-panel');
  status = () => this.page.getByTestId('trade-status').innerText();
  hint = () => this.page.getByTestId('trade-hint').innerText();

  /** The last "Filled …" line of the terminal log. */
  async lastFill(): Promise<string> {
    const lines = (await this.log()).split('\n').filter((l) => l.startsWith('Filled '));
    return lines.at(-1) ?? '';
  }
}

describe('orders say what they really do', () => {
  let env: E2eEnv;
  beforeAll(async () => {
    env = await startE2e({ MARKET_SOURCE: 'sim', MARKET_SIM_TICK_MS: '250' });
  });
  afterAll(async () => {
    await env?.close();
  });

  it('btc long 200 and 150: the preview, the terminal and the trade panel state the actual quantity and notional', async () => {
    const { page, problems, offsite, context } = await openPage(env);
    const ui = new TruthPage(page);
    await page.goto(env.baseUrl + '/');
    await page.waitForSelector('[data-testid="terminal"] .xterm');
    await signUpAndLogInThroughUi(page, 'true@example.com', 'truth', 'honest pass 1');

    for (const amount of [200, 150]) {
      await ui.typeLine(`btc long ${amount}`);
      await expect.poll(() => ui.preview()).toMatch(/BTC ≈ [\d,.]+ USDT of BTC\/USDT at .* · min\. 100 USDT/);
      const preview = await ui.preview();
      expectNearest(amount, sized(preview));
      expect(preview).toContain(`Not exactly ${amount} USDT: BTC trades in steps of 0.001 BTC ≈`);
      if (amount === 200) await page.screenshot({ path: path.join(ARTIFACTS, 'truth-preview.png') });
      const fills = (await ui.log()).split('\n').filter((l) => l.startsWith('Filled ')).length;
      await page.keyboard.press('Enter');
      await expect
        .poll(async () => (await ui.log()).split('\n').filter((l) => l.startsWith('Filled ')).length)
        .toBe(fills + 1);
      const fill = await ui.lastFill();
      expect(fill).toMatch(
        /^Filled LONG [\d.]+ BTC ≈ [\d,.]+ USDT of BTC\/USDT at [\d,.]+, fee [\d.]+ USDT\./,
      );
      expectNearest(amount, sized(fill));
      // The fill is the previewed quantity (the price moved by a few ticks at most).
      expect(sized(fill).quantity).toBeCloseTo(sized(preview).quantity, 9);
      expect(fill).not.toContain(`for ${amount} USDT`);
    }
    await page.screenshot({ path: path.join(ARTIFACTS, 'truth-terminal.png') });

    // The trade panel starts at BTC's minimum, shows it, and sizes what is typed before it is sent.
    await page.getByRole('tab', { name: 'Trade', exact: true }).click();
    const total = ui.panel().getByLabel('Total (USDT)');
    expect(await total.inputValue()).toBe('100');
    await expect.poll(() => ui.hint()).toContain('min. 100 USDT');
    for (const amount of [200, 150]) {
      await total.fill(String(amount));
      await expect.poll(() => ui.hint()).toMatch(/≈ [\d.]+ BTC ≈ [\d,.]+ USDT/);
      const hint = await ui.hint();
      const m = /≈ ([\d.]+) BTC ≈ ([\d,.]+) USDT/.exec(hint)!;
      const hinted = { quantity: num(m[1]!), notional: num(m[2]!) };
      expect(Math.abs(hinted.notional - amount)).toBeLessThanOrEqual((STEP * 110_000) / 2);
      await ui.panel().getByRole('button', { name: 'Buy / Long' }).click();
      await expect.poll(() => ui.status()).toMatch(/^Success! Order ID: [0-9a-f-]{36}\. Filled LONG/);
      const status = await ui.status();
      expectNearest(amount, sized(status));
      expect(sized(status).quantity).toBeCloseTo(hinted.quantity, 9);
      if (amount === 200) await page.screenshot({ path: path.join(ARTIFACTS, 'truth-panel.png') });
    }

    // Under the minimum: said before sending, and the refusal names the symbol and the minimum.
    await total.fill('10');
    await expect.poll(() => ui.hint()).toContain('The minimum order for BTC/USDT is 100 USDT.');
    await ui.panel().getByRole('button', { name: 'Buy / Long' }).click();
    await expect.poll(() => ui.status()).toBe('Error: The minimum order for BTC/USDT is 100 USDT.');
    expect(await ui.status()).not.toMatch(/reduce/i);
    await page.screenshot({ path: path.join(ARTIFACTS, 'truth-minimum.png') });

    expect(problems).toEqual([]);
    expect(offsite).toEqual([]);
    await context.close();
  });
});
