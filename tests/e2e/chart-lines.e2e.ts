import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerDialog } from './support/dialogs';
import { ARTIFACTS, openPage, startE2e, type E2eEnv } from './support/browser';
import { signUpAndLogInThroughUi } from './support/session';

/** Where the screenshots go (`SHOTS_DIR`, or the artifacts folder). */
const SHOTS = process.env.SHOTS_DIR ?? ARTIFACTS;

/** A number as the app prints it (`94,120.4600`). */
const num = (text: string): number => Number(text.replace(/,/g, ''));

/** Page object: the chart's position lines, the terminal, and the Open Positions pane. */
class ChartLinesPage {
  constructor(private readonly page: Page) {}

  legend = (): Locator => this.page.getByTestId('chart-position-lines');
  legendText = async (): Promise<string> =>
    (await this.legend().count()) === 0 ? '' : this.legend().innerText();
  grip = (kind: 'sl' | 'tp'): Locator => this.page.locator(`[data-testid="chart-grip"][data-kind="${kind}"]`);
  ghost = (): Locator => this.page.getByTestId('chart-drag-ghost');
  log = () => this.page.getByTestId('terminal-log').innerText();
  row = (symbol: string): Locator =>
    this.page.locator(`[data-testid="position-row"][data-symbol="${symbol}"]`);
  /** The price of a leg in the positions pane: `SL 98,669.4380 exchange resting` → 98669.438. */
  async legPrice(kind: 'sl' | 'tp'): Promise<number> {
    const leg = this.row('BTC/USDT').locator(`[data-testid="protection-leg"][data-kind="${kind}"]`);
    const text = ((await leg.textContent()) ?? '').replace(/\s+/g, ' ').trim();
    return num(/^(?:SL|TP) ([\d,.]+)/.exec(text)?.[1] ?? 'NaN');
  }

  async typeInTerminal(text: string): Promise<void> {
    await this.page.locator('[data-testid="terminal"] .xterm').click();
    await this.page.keyboard.type(text);
    await this.page.keyboard.press('Enter');
  }

  /** The centre of a line's grip: where the line is on the chart. */
  async gripAt(kind: 'sl' | 'tp'): Promise<{ x: number; y: number }> {
    const box = await this.grip(kind).boundingBox();
    if (box === null) throw new Error(`No grip for ${kind}`);
    return { x: box.x + box.width / 2 - 30, y: box.y + box.height / 2 };
  }

  async shot(name: string): Promise<void> {
    await this.page.screenshot({ path: path.join(SHOTS, `chart-lines-${name}.png`) });
  }
}

/** Opens a protected BTC long from the terminal and waits for its lines on the chart. */
async function openProtectedLong(ui: ChartLinesPage): Promise<void> {
  await ui.typeInTerminal('btc long 500 sl 2% tp 5%');
  await expect.poll(() => ui.log(), { timeout: 15_000 }).toMatch(/Take profit [\d,.]+: resting/);
  await expect.poll(() => ui.legendText(), { timeout: 15_000 }).toMatch(/SL [\d,.]+ exchange/);
  const legend = await ui.legendText();
  expect(legend).toMatch(/LONG [\d.]+ @ [\d,.]+/);
  expect(legend).toMatch(/Liq\. [\d,.]+/);
  expect(legend).toMatch(/TP [\d,.]+ exchange/);
}

describe('the position on its chart', () => {
  let env: E2eEnv;
  beforeAll(async () => {
    await mkdir(SHOTS, { recursive: true });
    env = await startE2e({ MARKET_SOURCE: 'sim', MARKET_SIM_TICK_MS: '250' });
  });
  afterAll(async () => {
    await env?.close();
  });

  it('at 1440×900 draws the lines, moves the stop by dragging it, snaps back on a refusal, and clears them on close', async () => {
    const { page, problems, offsite, context } = await openPage(env);
    const ui = new ChartLinesPage(page);
    await page.goto(env.baseUrl + '/');
    await page.waitForSelector('[data-testid="terminal"] .xterm');
    await signUpAndLogInThroughUi(page, 'cara@example.com', 'cara', 'chart pass 1');
    await openProtectedLong(ui);
    await expect.poll(() => ui.grip('sl').count()).toBe(1);
    // A time exit, which the app runs, is marked on the time axis as the app's.
    await ui.typeInTerminal(
      `protect btc sl ${await ui.legPrice('sl')} tp ${await ui.legPrice('tp')} exit 30m`,
    );
    await expect.poll(() => ui.log()).toMatch(/Time exit at .*: in the app\./);
    await expect.poll(() => ui.legendText()).toMatch(/Exit \d\d:\d\d:\d\d UTC app/);
    await expect.poll(() => page.getByTestId('chart-deadline').count()).toBe(1);
    await ui.shot('1440');

    const stopBefore = await ui.legPrice('sl');
    const targetBefore = await ui.legPrice('tp');
    const at = await ui.gripAt('sl');
    await page.mouse.move(at.x, at.y);
    await page.mouse.down();
    await page.mouse.move(at.x, at.y - 25, { steps: 5 });
    await expect.poll(() => ui.ghost().innerText()).toMatch(/^SL [\d,.]+ \(\u2212[\d.]+ %\)$/);
    await ui.shot('1440-drag');
    await page.mouse.up();

    // The confirm names the price and the % from the entry; Enter moves it.
    const dialog = page.getByTestId('confirm-dialog');
    await expect.poll(() => dialog.count()).toBe(1);
    const question = await dialog.getByTestId('confirm-message').innerText();
    expect(question).toMatch(/^Move stop to [\d,.]+ \(\u2212[\d.]+ %\)\?$/);
    await ui.shot('1440-confirm');
    await page.keyboard.press('Enter');
    const asked = num(/to ([\d,.]+)/.exec(question)?.[1] ?? 'NaN');
    expect(asked).toBeGreaterThan(stopBefore);

    // The terminal ran its own command, and the pane shows the stop moved (the target kept).
    await expect.poll(() => ui.log()).toMatch(/protect btc sl [\d.]+ tp [\d.]+ exit \d+m/);
    await expect.poll(() => ui.legPrice('sl')).not.toBe(stopBefore);
    expect(Math.abs((await ui.legPrice('sl')) - asked)).toBeLessThanOrEqual(0.1);
    expect(await ui.legPrice('tp')).toBe(targetBefore);
    await ui.shot('1440-moved');

    // A stop dragged above the price is refused by the server: the line stays, its words are shown.
    const moved = await ui.legPrice('sl');
    const from = await ui.gripAt('sl');
    const to = await ui.gripAt('tp');
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move(from.x, to.y + 10, { steps: 8 });
    await page.mouse.up();
    await answerDialog(page, true);
    await expect
      .poll(() => page.getByTestId('chart-move-refused').innerText())
      .toMatch(/^A long's stop loss must be below the price \([\d,.]+\)\./);
    expect(await ui.legPrice('sl')).toBe(moved);
    await ui.shot('1440-refused');

    // Esc while dragging keeps the stop where it is, and asks nothing.
    const again = await ui.gripAt('sl');
    await page.mouse.move(again.x, again.y);
    await page.mouse.down();
    await page.mouse.move(again.x, again.y - 15, { steps: 3 });
    await page.keyboard.press('Escape');
    await page.mouse.up();
    expect(await ui.ghost().count()).toBe(0);
    expect(await page.getByTestId('confirm-dialog').count()).toBe(0);

    // Closed: the lines go.
    await ui.row('BTC/USDT').getByRole('button', { name: 'Close' }).click();
    await answerDialog(page, true);
    await expect.poll(() => ui.legend().count()).toBe(0);
    expect(await ui.grip('sl').count()).toBe(0);
    // The refused move is the one failed request: the browser logs its 422.
    expect(problems).toEqual([
      expect.stringMatching(/status of 422 .*\/api\/positions\/BTCUSDT\/protection\)$/),
    ]);
    expect(offsite).toEqual([]);
    await context.close();
  }, 120_000);

  it('at 390×844 a long press on the stop takes it, and the move shows in the positions pane', async () => {
    // Signed up on a wide screen (the phone's header keeps Sign Up in its menu), then held as a phone.
    const context = await env.browser.newContext({ viewport: { width: 1440, height: 900 }, hasTouch: true });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(err.message));
    const ui = new ChartLinesPage(page);
    const tab = (name: string) => page.getByRole('tablist', { name: 'Panes' }).getByRole('tab', { name });
    await page.goto(env.baseUrl + '/');
    await page.waitForSelector('[data-testid="terminal"] .xterm', { state: 'attached' });
    await signUpAndLogInThroughUi(page, 'dev@example.com', 'dev', 'chart pass 2');
    await page.setViewportSize({ width: 390, height: 844 });
    await tab('Terminal').click();
    await openProtectedLong(ui);
    await tab('Chart').click();
    await expect.poll(() => ui.grip('sl').isVisible()).toBe(true);
    await ui.shot('390');

    const stopBefore = await ui.legPrice('sl');
    const at = await ui.gripAt('sl');
    const touch = await context.newCDPSession(page);
    const point = (y: number) => [{ x: at.x, y, id: 1 }];
    await touch.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: point(at.y) });
    await page.waitForTimeout(600);
    for (let dy = 5; dy <= 30; dy += 5) {
      await touch.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: point(at.y - dy) });
    }
    await expect.poll(() => ui.ghost().innerText()).toMatch(/^SL [\d,.]+ \(\u2212[\d.]+ %\)$/);
    await ui.shot('390-drag');
    await touch.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    const dialog = page.getByTestId('confirm-dialog');
    await expect.poll(() => dialog.count()).toBe(1);
    await ui.shot('390-confirm');
    const asked = await answerDialog(page, true);
    expect(asked.message).toMatch(/^Move stop to [\d,.]+ \(\u2212[\d.]+ %\)\?$/);

    await tab('Positions').click();
    await expect.poll(() => ui.legPrice('sl')).toBeGreaterThan(stopBefore);
    await ui.shot('390-moved');
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
