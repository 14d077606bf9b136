import { computed, effect, signal, untracked, type ReadonlySignal } from '@preact/signals-core';
import type { Clock, Disposer } from '../clock';
import type { MarketStore } from '../stores/market';
import type { ChartSource, UiStore } from '../stores/ui';
import {
  TV_EMBED_URL,
  TV_LOAD_TIMEOUT_MS,
  tradingViewEmbedUrl,
  tradingViewInterval,
  tradingViewSymbol,
  type TradingViewChart,
  type TradingViewPort,
} from './tradingView';

/** Why the pane shows the offline chart although TradingView was asked for: one short line each. */
export const CHART_SOURCE_TEXT = {
  offline: 'TradingView needs the internet; showing the offline chart.',
  failed: 'TradingView could not be loaded; showing the offline chart.',
  timeout: `TradingView did not load within ${TV_LOAD_TIMEOUT_MS / 1000} s; showing the offline chart.`,
  broken: 'TradingView could not draw its chart; showing the offline chart.',
  noChart: 'There is no chart here.',
} as const;

/** What the chart pane shows: our candles (with the reason when TradingView was asked for), or the widget. */
export type ChartShown = { view: 'local'; note: string | null } | { view: 'loading' } | { view: 'tv' };

export interface ChartSourceModel {
  readonly shown: ReadonlySignal<ChartShown>;
  /** The chosen symbol and interval in TradingView's words. */
  readonly tvChart: ReadonlySignal<TradingViewChart>;
  /**
   * Remembers the choice and shows it: TradingView only when the browser is online and TradingView
   * answers within {@link TV_LOAD_TIMEOUT_MS}. Answers what is shown once that is settled.
   */
  choose(source: ChartSource): Promise<ChartShown>;
  /** Shows the remembered choice; the disposer drops a load still on its way. */
  start(): Disposer;
  /**
   * Puts the widget's frame into the element with this id, a new one on each symbol or interval change.
   */
  mount(containerId: string): Disposer;
}

export interface ChartSourceDeps {
  ui: UiStore;
  market: MarketStore;
  clock: Clock;
  /** The browser's way to TradingView's frame; null where there is no chart (the CLI). */
  port: TradingViewPort | null;
}

type LoadOutcome = 'loaded' | 'failed' | 'timeout';

const local = (note: string | null = null): ChartShown => ({ view: 'local', note });

export function createChartSourceModel({ ui, market, clock, port }: ChartSourceDeps): ChartSourceModel {
  const shown = signal<ChartShown>(local(), { name: 'chartSource.shown' });
  const tvChart = computed(
    () => ({
      symbol: tradingViewSymbol(ui.ticker.value),
      interval: tradingViewInterval(market.interval.value),
    }),
    { name: 'chartSource.tvChart' },
  );
  /** Each request takes a number; an answer counts only if nothing was asked after it. */
  let generation = 0;
  let pending: Promise<ChartShown> | null = null;

  /**
   * Whether TradingView can be shown: its embed page is asked for first, and the frame is shown only once
   * it answered. A frame's own load event cannot say this: it fires for the browser's error page as well,
   * and a cross-origin frame cannot be looked into, so it would show a broken frame as loaded. Asking
   * first tells an unreachable TradingView (no network, blocked, refused) from a slow one, as the notes
   * say; a page that answers and then fails to draw is TradingView's to report inside its frame.
   */
  const load = (tv: TradingViewPort): Promise<LoadOutcome> =>
    new Promise((resolve) => {
      const cancel = clock.setTimer(() => resolve('timeout'), TV_LOAD_TIMEOUT_MS);
      const settle = (outcome: LoadOutcome): void => {
        cancel();
        resolve(outcome);
      };
      tv.reach(TV_EMBED_URL).then(
        (ok) => settle(ok ? 'loaded' : 'failed'),
        () => settle('failed'),
      );
    });

  const showTradingView = async (): Promise<ChartShown> => {
    const mine = ++generation;
    if (port === null || !port.online()) {
      shown.value = local(port === null ? CHART_SOURCE_TEXT.noChart : CHART_SOURCE_TEXT.offline);
      return shown.peek();
    }
    shown.value = { view: 'loading' };
    const outcome = await load(port);
    if (mine === generation) {
      shown.value =
        outcome === 'loaded'
          ? { view: 'tv' }
          : local(outcome === 'timeout' ? CHART_SOURCE_TEXT.timeout : CHART_SOURCE_TEXT.failed);
    }
    return shown.peek();
  };

  const choose = (source: ChartSource): Promise<ChartShown> => {
    ui.chooseChartSource(source);
    if (source === 'local') {
      generation += 1;
      pending = null;
      shown.value = local();
      return Promise.resolve(shown.peek());
    }
    if (shown.peek().view === 'tv') return Promise.resolve(shown.peek());
    if (pending === null) {
      const request = showTradingView().finally(() => {
        if (pending === request) pending = null;
      });
      pending = request;
    }
    return pending;
  };

  return {
    shown,
    tvChart,
    choose,
    start() {
      if (ui.chartSource.peek() === 'tv') void choose('tv');
      return () => {
        generation += 1;
        pending = null;
      };
    },
    mount(containerId) {
      let remove: Disposer | null = null;
      const stop = effect(() => {
        const chart = tvChart.value;
        untracked(() => {
          remove?.();
          remove = null;
          if (port === null || shown.peek().view !== 'tv') return;
          try {
            const frameId = `${containerId}-frame`;
            remove = port.create({ containerId, frameId, url: tradingViewEmbedUrl(chart, frameId) });
          } catch {
            generation += 1;
            shown.value = local(CHART_SOURCE_TEXT.broken);
          }
        });
      });
      return () => {
        stop();
        remove?.();
      };
    },
  };
}
