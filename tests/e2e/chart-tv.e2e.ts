import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, openPage, startE2e, type E2eEnv } from './support/browser';

const TV_JS = 'https://s3.tradingview.com/tv.js';
const LOOPBACK = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * A stand-in for tv.js: `TradingView.widget` writes what it was asked to draw into its container, so
 * the test sees the options the app passed. Served by `page.route`; nothing leaves the machine.
 */
const FAKE_TV_JS = `
window.TradingView = {
  widget: function (o) {
    var mark = document.createElement('div');
    mark.setAttribute('data-testid', 'tv-fake-widget');
    mark.textContent = ['TradingView', o.symbol, o.interval, o.theme, o.timezone].join(' ');
    mark.style.cssText = 'position:absolute;inset:0;display:flex;align-items:center;' +
      'justify-content:center;background:#131722;color:#2962ff;font:16px monospace';
    document.getElementById(o.container_id).appendChild(mark);
  }
};`;

/** Every request past loopback is refused, as on a machine without internet. */
async function noInternet(context: BrowserContext): Promise<void> {
  await context.route(
    (url) => url.protocol.startsWith('http') && !LOOPBACK.includes(url.hostname),
    (route) => route.abort('internetdisconnected'),
  );
}

/** Page object for the chart pane and the command line that drives it. */
class ChartPage {
  constructor(private readonly page: Page) {}

  body = () => this.page.getByTestId('chart-body');
  view = () => this.body().getAttribute('data-view');
  state = () => this.body().getAttribute('data-state');
  note = () => this.page.getByTestId('chart-note').innerText();
  fakeWidget = () => this.page.getByTestId('tv-fake-widget').innerText();
  canvasVisible = () => this.page.locator('.chart-canvas').isVisible();
  toggle = () => this.page.getByRole('button', { name: 'TV (TradingView)' });
  log = () => this.page.getByTestId('terminal-log').innerText();

  async open(baseUrl: string): Promise<void> {
    await this.page.goto(baseUrl + '/');
    await expect.poll(() => this.state(), { timeout: 15_000 }).toBe('ready');
  }

  async command(line: string): Promise<void> {
    await this.page.locator('[data-testid="terminal"] .xterm').click();
    await this.page.keyboard.type(line);
    await this.page.keyboard.press('Enter');
  }

  async waitForLog(text: string): Promise<void> {
    await expect.poll(() => this.log(), { timeout: 10_000 }).toContain(text);
  }
}

describe('the TradingView chart', () => {
  let env: E2eEnv;
  beforeAll(async () => {
    env = await startE2e();
  });
  afterAll(async () => {
    await env?.close();
  });

  it('without internet keeps the offline chart and says why, in the pane and the terminal', async () => {
    const { page, context, problems, offsite } = await openPage(env);
    await noInternet(context);
    const chart = new ChartPage(page);
    await chart.open(env.baseUrl);

    // The browser knows it is offline: tv.js is not even asked for.
    await context.setOffline(true);
    await chart.command('chart tv');
    await chart.waitForLog('TradingView needs the internet; showing the offline chart.');
    expect(await chart.note()).toBe('TradingView needs the internet; showing the offline chart.');
    expect(await chart.view()).toBe('local');
    expect(await chart.canvasVisible()).toBe(true);
    expect(offsite).toEqual([]);
    await context.setOffline(false);

    // Online as far as the browser knows, but the script never arrives.
    await chart.toggle().click();
    await chart.waitForLog('TradingView could not be loaded; showing the offline chart.');
    expect(await chart.note()).toBe('TradingView could not be loaded; showing the offline chart.');
    expect(await chart.view()).toBe('local');
    expect(await chart.canvasVisible()).toBe(true);
    expect(offsite).toEqual([TV_JS]);
    await page.screenshot({ path: path.join(ARTIFACTS, 'chart-tv-offline.png') });

    // Only the refused script and the sockets cut while offline complain; the page itself never fails.
    expect(problems.filter((p) => p.startsWith('pageerror'))).toEqual([]);
    await context.close();
  });

  it('shows the widget when tv.js loads, follows the interval, is remembered, and chart local goes back', async () => {
    const { page, context, problems, offsite } = await openPage(env);
    await noInternet(context);
    await page.route(TV_JS, (route) =>
      route.fulfill({ status: 200, contentType: 'application/javascript', body: FAKE_TV_JS }),
    );
    const chart = new ChartPage(page);
    await chart.open(env.baseUrl);
    expect(await chart.view()).toBe('local');
    expect(await chart.toggle().getAttribute('aria-pressed')).toBe('false');

    await chart.command('chart tv');
    await chart.waitForLog("Showing TradingView's chart of BINANCE:BTCUSDT.P (15m, UTC).");
    await expect.poll(() => chart.view()).toBe('tv');
    expect(await chart.fakeWidget()).toBe('TradingView BINANCE:BTCUSDT.P 15 dark Etc/UTC');
    expect(await chart.canvasVisible()).toBe(false);
    expect(await chart.toggle().getAttribute('aria-pressed')).toBe('true');

    await chart.command('chart 1h');
    await expect.poll(() => chart.fakeWidget()).toBe('TradingView BINANCE:BTCUSDT.P 60 dark Etc/UTC');
    await page.screenshot({ path: path.join(ARTIFACTS, 'chart-tv-widget.png') });

    // The choice survives a reload.
    await page.reload();
    await expect.poll(() => chart.view(), { timeout: 15_000 }).toBe('tv');
    await expect.poll(() => chart.fakeWidget()).toContain('BINANCE:BTCUSDT.P');

    await chart.command('chart local');
    await chart.waitForLog('Showing the offline chart.');
    await expect.poll(() => chart.view()).toBe('local');
    expect(await page.getByTestId('tv-fake-widget').count()).toBe(0);
    expect(await chart.canvasVisible()).toBe(true);
    expect(await page.getByTestId('chart-note').count()).toBe(0);
    await expect.poll(() => chart.state()).toBe('ready');
    await page.waitForTimeout(300); // let the candles paint
    await page.screenshot({ path: path.join(ARTIFACTS, 'chart-tv-back-local.png') });

    expect(problems).toEqual([]);
    expect(new Set(offsite)).toEqual(new Set([TV_JS]));
    await context.close();
  });
});
