import { computed, effect, signal, type ReadonlySignal } from '@preact/signals-core';
import { CandleList, type Candle, type Interval } from '../../contracts/market';
import { QUOTE } from '../../contracts/symbols';
import { errorMessage, type ApiClient } from '../api';
import type { MarketStore } from '../stores/market';
import type { UiStore } from '../stores/ui';
import { applyCandle, applyPrice, chartMarkers, type ChartMarker } from './candles';
import type { PriceChannel } from './priceChannel';

/** Candles loaded per chart (the server gives up to 1000). */
export const CHART_CANDLES = 500;

export type ChartState = 'loading' | 'ready' | 'error';

/** What the chart pane draws: `revision` changes on a full reload; otherwise only the last candle moved. */
export interface ChartView {
  revision: number;
  candles: readonly Candle[];
}

export interface ChartModel {
  /** Exchange symbol of the chosen pair, e.g. `BTCUSDT`. */
  readonly symbol: ReadonlySignal<string>;
  readonly interval: ReadonlySignal<Interval>;
  readonly view: ReadonlySignal<ChartView>;
  readonly state: ReadonlySignal<ChartState>;
  readonly error: ReadonlySignal<string | null>;
  readonly markers: ReadonlySignal<readonly ChartMarker[]>;
  /** The last price on the chart, or null before the first load. */
  readonly lastPrice: ReadonlySignal<number | null>;
  /** Loads candles for the chosen symbol and interval and keeps the last one live; returns the disposer. */
  start(): () => void;
}

export interface ChartModelDeps {
  ui: UiStore;
  market: MarketStore;
  api: ApiClient;
  channel: PriceChannel;
}

export function createChartModel({ ui, market, api, channel }: ChartModelDeps): ChartModel {
  const symbol = computed(() => `${ui.ticker.value}${QUOTE}`, { name: 'chart.symbol' });
  const view = signal<ChartView>({ revision: 0, candles: [] }, { name: 'chart.view' });
  const state = signal<ChartState>('loading', { name: 'chart.state' });
  const error = signal<string | null>(null, { name: 'chart.error' });
  let generation = 0;

  const replaceCandles = (next: Candle[] | null): void => {
    if (next !== null) view.value = { revision: view.peek().revision, candles: next };
  };

  const load = async (s: string, interval: Interval): Promise<void> => {
    const mine = ++generation;
    state.value = 'loading';
    error.value = null;
    try {
      const candles = await api.call(CandleList, '/klines', {
        query: { symbol: s, interval, limit: CHART_CANDLES },
      });
      if (mine !== generation) return;
      view.value = { revision: view.peek().revision + 1, candles };
      state.value = 'ready';
    } catch (err) {
      if (mine !== generation) return;
      error.value = errorMessage(err, 'Failed to load candles.');
      state.value = 'error';
    }
  };

  return {
    symbol,
    interval: market.interval,
    view,
    state,
    error,
    markers: computed(
      () =>
        chartMarkers(market.chartSignals.value, ui.ticker.value, market.interval.value, view.value.candles),
      { name: 'chart.markers' },
    ),
    lastPrice: computed(() => view.value.candles.at(-1)?.close ?? null, { name: 'chart.lastPrice' }),
    start() {
      let unwatch = (): void => undefined;
      const stopLoading = effect(() => {
        const s = symbol.value;
        const interval = market.interval.value;
        unwatch();
        unwatch = channel.watch(s);
        channel.setChart(s, interval);
        void load(s, interval);
      });
      const stopCandles = channel.onCandle((update) => {
        if (update.s !== symbol.peek() || update.i !== market.interval.peek() || state.peek() !== 'ready')
          return;
        replaceCandles(applyCandle(view.peek().candles, update.candle));
      });
      const stopPrices = channel.onPrices((items) => {
        if (state.peek() !== 'ready') return;
        const item = items.find((i) => i.s === symbol.peek());
        if (item !== undefined) {
          replaceCandles(applyPrice(view.peek().candles, item.p, item.t, market.interval.peek()));
        }
      });
      return () => {
        generation += 1;
        stopLoading();
        stopCandles();
        stopPrices();
        unwatch();
        channel.setChart(null, market.interval.peek());
      };
    },
  };
}
