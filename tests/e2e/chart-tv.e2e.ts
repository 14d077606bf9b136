import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, openPage, startE2e, type E2eEnv } from './support/browser';

const TV_EMBED = 'https://s.tradingview.com/widgetembed/';
const LOOPBACK = ['127.0.0.1', 'localhost', '[::1]'];

const escapeHtml = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);

/**
 * A stand-in for TradingView's embed page: it prints what the frame's address asked for, so the test
 * reads through the frame what the app asked TradingView to draw. Served by `page.route`; nothing leaves
 * the machine.
 */
function fakeEmbedPage(url: string): string {
  const query = new URL(url).searchParams;
  const shown = [
    'TradingView',
    ...['symbol', 'interval', 'theme', 'timezone'].map((k) => query.get(k) ?? '-'),
  ];
  return `<!doctype html><meta charset="utf-8"><title>TradingView stand-in</title>
<body style="margin:0;background:#131722">
<div data-testid="tv-fake-widget" style="position:absolute;inset:0;display:flex;align-items:center;justify-content:center;color:#2962ff;font:16px monospace">${escapeHtml(shown.join(' '))}</div>
</body>`;
}

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
  frame = () => this.page.getByTestId('chart-tv-frame');
  /** What the stand-in page inside TradingView's frame prints. */
  fakeWidget = () =>
    this.page.frameLocator('[data-testid="chart-tv-frame"]').getByTestId('tv-fake-widget').innerText();
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

    // The browser knows it is offline: TradingView is not even asked.
    await context.setOffline(true);
    await chart.command('chart tv');
    await chart.waitForLog('TradingView needs the internet; showing the offline chart.');
    expect(await chart.note()).toBe('TradingView needs the internet; showing the offline chart.');
    expect(await chart.view()).toBe('local');
    expect(await chart.canvasVisible()).toBe(true);
    expect(offsite).toEqual([]);
    await context.setOffline(false);

    // Online as far as the browser knows, but TradingView does not answer.
    await chart.toggle().click();
    await chart.waitForLog('TradingView could not be loaded; showing the offline chart.');
    expect(await chart.note()).toBe('TradingView could not be loaded; showing the offline chart.');
    expect(await chart.view()).toBe('local');
    expect(await chart.canvasVisible()).toBe(true);
    expect(await chart.frame().count()).toBe(0);
    expect(offsite).toEqual([TV_EMBED]);
    await page.screenshot({ path: path.join(ARTIFACTS, 'chart-tv-offline.png') });

    // Only the refused request and the sockets cut while offline complain; the page itself never fails.
    expect(problems.filter((p) => p.startsWith('pageerror'))).toEqual([]);
    await context.close();
  });

  it('shows TradingView in a sandboxed frame, follows the interval, is remembered, and chart local goes back', async () => {
    const { page, context, problems, offsite } = await openPage(env);
    await noInternet(context);
    await page.route(`${TV_EMBED}**`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: fakeEmbedPage(route.request().url()) }),
    );
    const chart = new ChartPage(page);
    await chart.open(env.baseUrl);
    expect(await chart.view()).toBe('local');
    expect(await chart.toggle().getAttribute('aria-pressed')).toBe('false');

    await chart.command('chart tv');
    await chart.waitForLog("Showing TradingView's chart of BINANCE:BTCUSDT.P (15m, UTC).");
    await expect.poll(() => chart.view()).toBe('tv');
    await expect.poll(() => chart.fakeWidget()).toBe('TradingView BINANCE:BTCUSDT.P 15 dark Etc/UTC');
    expect(await chart.canvasVisible()).toBe(false);
    expect(await chart.toggle().getAttribute('aria-pressed')).toBe('true');

    // The frame is sandboxed and of TradingView's origin: it cannot reach our page, and no script of
    // theirs is in ours.
    expect(await chart.frame().getAttribute('sandbox')).toBe(
      'allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox',
    );
    const src = new URL((await chart.frame().getAttribute('src')) ?? '');
    expect(src.origin + src.pathname).toBe(TV_EMBED);
    expect(src.searchParams.get('frameElementId')).toBe(await chart.frame().getAttribute('id'));
    const tvFrame = page.frames().find((f) => f.url().startsWith(TV_EMBED));
    expect(
      await tvFrame?.evaluate(() => {
        try {
          return String(window.parent.document.title);
        } catch {
          return 'refused';
        }
      }),
    ).toBe('refused');
    expect(await page.locator('script[src*="tradingview"]').count()).toBe(0);

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
    expect(await chart.frame().count()).toBe(0);
    expect(await chart.canvasVisible()).toBe(true);
    expect(await page.getByTestId('chart-note').count()).toBe(0);
    await expect.poll(() => chart.state()).toBe('ready');
    await page.waitForTimeout(300); // let the candles paint
    await page.screenshot({ path: path.join(ARTIFACTS, 'chart-tv-back-local.png') });

    expect(problems).toEqual([]);
    // Only TradingView's embed page was asked for off the machine (and answered by the stand-in).
    expect(offsite.length).toBeGreaterThan(0);
    expect(offsite.filter((url) => !url.startsWith(TV_EMBED))).toEqual([]);
    await context.close();
  });
});
