import type { Interval } from '../../contracts/market';
import { QUOTE } from '../../contracts/symbols';

/**
 * TradingView's Advanced Chart widget (docs/product.md §2 chart panel: the symbol on Binance, 15 minutes, UTC, dark,
 * symbol change allowed). It lives on TradingView's servers, so it is an option beside our own chart,
 * which works offline and stays the default.
 *
 * It is shown as TradingView's own embed page in a sandboxed, cross-origin frame, never as their script in
 * our page: nothing of theirs runs where the access token lives, and the frame cannot reach our page, its
 * storage or its cookies, nor navigate it. The frame may run its scripts, keep its own origin (the chart
 * needs its storage) and open TradingView's pages in new windows, which leave the sandbox.
 */
export const TV_EMBED_ORIGIN = 'https://s.tradingview.com';
export const TV_EMBED_URL = `${TV_EMBED_ORIGIN}/widgetembed/`;
export const TV_FRAME_SANDBOX = 'allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox';

/** How long TradingView may take to answer before the pane keeps the offline chart. */
export const TV_LOAD_TIMEOUT_MS = 5_000;

/** Our intervals in TradingView's words: minutes as a number, days as `D`. */
const TV_INTERVALS: Readonly<Record<Interval, string>> = {
  '1m': '1',
  '3m': '3',
  '5m': '5',
  '15m': '15',
  '30m': '30',
  '1h': '60',
  '2h': '120',
  '4h': '240',
  '6h': '360',
  '8h': '480',
  '12h': '720',
  '1d': 'D',
};

/** Orders go to Binance USD-M perpetuals, which TradingView names with `.P`: `BTC` → `BINANCE:BTCUSDT.P`. */
export function tradingViewSymbol(ticker: string): string {
  return `BINANCE:${ticker.toUpperCase()}${QUOTE}.P`;
}

export function tradingViewInterval(interval: Interval): string {
  return TV_INTERVALS[interval];
}

/** The symbol and interval the widget shows, in TradingView's words. */
export interface TradingViewChart {
  symbol: string;
  interval: string;
}

/** TradingView's embed page for a chart: the frame with id `frameId` loads it. */
export function tradingViewEmbedUrl(chart: TradingViewChart, frameId: string): string {
  const url = new URL(TV_EMBED_URL);
  const query: [string, string][] = [
    ['frameElementId', frameId],
    ['symbol', chart.symbol],
    ['interval', chart.interval],
    ['theme', 'dark'],
    // Candles.
    ['style', '1'],
    ['timezone', 'Etc/UTC'],
    ['locale', 'en'],
    ['toolbarbg', '0b0e11'],
    // Symbol change allowed; no image saving; the drawing tools shown.
    ['symboledit', '1'],
    ['saveimage', '0'],
    ['hidesidetoolbar', '0'],
  ];
  for (const [name, value] of query) url.searchParams.set(name, value);
  return url.href;
}

/** One frame of the widget: its id, the element it goes into, and the address it loads. */
export interface TradingViewFrame {
  containerId: string;
  frameId: string;
  url: string;
}

/**
 * What the core needs from the browser to show the widget: `navigator.onLine`, a reachability check and
 * a sandboxed frame in the app, a fake in tests. The core decides when, and what to show when it does
 * not work.
 */
export interface TradingViewPort {
  /** False when the browser knows it has no network. */
  online(): boolean;
  /** Whether `url` answers at all: true when it did, false when the request failed. */
  reach(url: string): Promise<boolean>;
  /** Shows `frame.url` in a sandboxed frame inside `frame.containerId`; the disposer takes it out. */
  create(frame: TradingViewFrame): () => void;
}
