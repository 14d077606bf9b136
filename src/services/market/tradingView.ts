import type { Interval } from '../../contracts/market';
import { QUOTE } from '../../contracts/symbols';

/**
 * TradingView's Advanced Chart widget (spec §2 chart panel: the symbol on Binance, 15 minutes, UTC, dark,
 * symbol change allowed). It lives on TradingView's servers, so it is an option beside our own chart,
 * which works offline and stays the default.
 */
export const TV_SCRIPT_URL = 'https://s3.tradingview.com/tv.js';

/** How long tv.js may take to load before the pane keeps the offline chart. */
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

/** The options `new TradingView.widget(…)` takes, as far as this app sets them. */
export interface TradingViewWidgetOptions extends TradingViewChart {
  container_id: string;
  autosize: true;
  timezone: 'Etc/UTC';
  theme: 'dark';
  /** Candles. */
  style: '1';
  locale: 'en';
  toolbar_bg: string;
  allow_symbol_change: true;
  enable_publishing: false;
  save_image: false;
}

export function widgetOptions(chart: TradingViewChart, containerId: string): TradingViewWidgetOptions {
  return {
    ...chart,
    container_id: containerId,
    autosize: true,
    timezone: 'Etc/UTC',
    theme: 'dark',
    style: '1',
    locale: 'en',
    toolbar_bg: '#0b0e11',
    allow_symbol_change: true,
    enable_publishing: false,
    save_image: false,
  };
}

/**
 * What the core needs from the browser to show the widget: a script tag and `navigator.onLine` in the
 * app, a fake in tests. The core decides when, and what to show when it does not work.
 */
export interface TradingViewPort {
  /** False when the browser knows it has no network. */
  online(): boolean;
  /** Loads the script once; true when it ran and defined `TradingView.widget`, false when it failed. */
  load(url: string): Promise<boolean>;
  /** Draws a widget into the element `options.container_id`; the disposer takes it out again. */
  create(options: TradingViewWidgetOptions): () => void;
}
