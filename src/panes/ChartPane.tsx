import { effect } from '@preact/signals-core';
import { useSignals } from '@preact/signals-react/runtime';
import type { IChartApi, MouseEventParams, Time, UTCTimestamp } from 'lightweight-charts';
import { useEffect, useRef, useState } from 'react';
import { useServices } from '../app/AppContext';
import type { Candle } from '../contracts/market';
import type { ChartModel } from '../services/market/chartModel';
import { DOWN, UP, toBar, toVolume, type ChartMarker } from '../services/market/candles';
import { pricePrecision } from '../services/market/format';
import { formatPrice } from '../services/trading/format';
import { ChartPositionOverlay } from './ChartPositionOverlay';
import { TradingViewChart } from './TradingViewChart';
import { useChartPosition, type AttachLayer } from './useChartPosition';
import './market.css';

/** The intervals offered as buttons; `chart <interval>` accepts every supported one. */
const QUICK_INTERVALS = ['1m', '5m', '15m', '1h', '4h', '1d'] as const;

/** A finger rather than a mouse: the chart's hint says to hold a line. */
const COARSE_POINTER = (): boolean =>
  typeof window.matchMedia === 'function' && window.matchMedia('(pointer: coarse)').matches;

const utc = (seconds: number) => seconds as UTCTimestamp;
const bar = (c: Candle) => ({ ...toBar(c), time: utc(toBar(c).time) });
const volumeBar = (c: Candle) => ({ ...toVolume(c), time: utc(toVolume(c).time) });

interface Hover {
  marker: ChartMarker;
  x: number;
  y: number;
}

/**
 * The chart library is a download of its own (a seventh of the app), asked for as the pane mounts: the
 * console, the feed and the pane's own controls do not wait for it.
 */
const loadChartLibrary = () => import('lightweight-charts');
type ChartLibrary = Awaited<ReturnType<typeof loadChartLibrary>>;

/**
 * Draws the model on a lightweight-charts chart once the library is loaded; every subscription is
 * disposed on unmount. Answers the element to draw in, and whether the library failed to load.
 */
function useCandleChart(model: ChartModel, onHover: (hover: Hover | null) => void, attach: AttachLayer) {
  const container = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    const element = container.current;
    if (element === null) return;
    let dispose: (() => void) | null = null;
    let unmounted = false;
    loadChartLibrary().then(
      (lib) => {
        if (!unmounted) dispose = drawChart(lib, element, model, onHover, attach);
      },
      () => {
        if (!unmounted) setFailed(true);
      },
    );
    return () => {
      unmounted = true;
      dispose?.();
    };
  }, [model, onHover, attach]);
  return { container, failed };
}

function drawChart(
  lib: ChartLibrary,
  element: HTMLElement,
  model: ChartModel,
  onHover: (hover: Hover | null) => void,
  attach: AttachLayer,
): () => void {
  const { CandlestickSeries, ColorType, CrosshairMode, HistogramSeries, createChart, createSeriesMarkers } =
    lib;
  const chart: IChartApi = createChart(element, {
    autoSize: true,
    layout: {
      background: { type: ColorType.Solid, color: '#0b0e11' },
      textColor: '#848e9c',
      fontSize: 11,
      attributionLogo: false,
    },
    grid: { vertLines: { color: '#161a1f' }, horzLines: { color: '#161a1f' } },
    crosshair: { mode: CrosshairMode.Normal },
    rightPriceScale: { borderColor: '#232a33' },
    timeScale: { borderColor: '#232a33', timeVisible: true, secondsVisible: false, rightOffset: 4 },
    localization: { locale: 'en-US' },
  });
  const candles = chart.addSeries(CandlestickSeries, {
    upColor: UP,
    downColor: DOWN,
    wickUpColor: UP,
    wickDownColor: DOWN,
    borderVisible: false,
  });
  const volume = chart.addSeries(HistogramSeries, { priceFormat: { type: 'volume' }, priceScaleId: '' });
  volume.priceScale().applyOptions({ scaleMargins: { top: 0.82, bottom: 0 } });
  candles.priceScale().applyOptions({ scaleMargins: { top: 0.08, bottom: 0.22 } });
  const markers = createSeriesMarkers(candles, []);

  let drawn = -1;
  const stopView = effect(() => {
    const { revision, candles: list } = model.view.value;
    const last = list.at(-1);
    if (revision !== drawn) {
      drawn = revision;
      const precision = pricePrecision(last?.close ?? 0);
      candles.applyOptions({ priceFormat: { type: 'price', precision, minMove: 10 ** -precision } });
      candles.setData(list.map(bar));
      volume.setData(list.map(volumeBar));
      chart.timeScale().scrollToRealTime();
    } else if (last !== undefined) {
      candles.update(bar(last));
      volume.update(volumeBar(last));
    }
  });
  const stopMarkers = effect(() => {
    markers.setMarkers(
      model.markers.value.map((m) => ({
        id: m.id,
        time: utc(m.time),
        position: m.position,
        shape: m.shape,
        color: m.color,
        size: 1.4,
      })),
    );
  });
  const onMove = (param: MouseEventParams<Time>): void => {
    const id = param.hoveredObjectId;
    const marker = model.markers.peek().find((m) => m.id === id);
    onHover(marker === undefined || param.point === undefined ? null : { marker, ...param.point });
  };
  chart.subscribeCrosshairMove(onMove);
  const detachPosition = attach(chart, candles, element, lib.LineStyle);
  return () => {
    detachPosition();
    chart.unsubscribeCrosshairMove(onMove);
    stopView();
    stopMarkers();
    markers.detach();
    chart.remove();
  };
}

/** docs/product.md §2 chart panel: our candles with volume and news markers (UTC, dark), or TradingView's widget. */
export function ChartPane() {
  useSignals();
  const { chart, stores, terminal } = useServices();
  const [hover, setHover] = useState<Hover | null>(null);
  const position = useChartPosition();
  const { container, failed } = useCandleChart(chart, setHover, position.attach);
  const interval = chart.interval.value;
  const state = chart.state.value;
  const last = chart.lastPrice.value;
  const markers = chart.markers.value;
  const shown = stores.chartSource.shown.value;
  const local = shown.view !== 'tv';
  const tvAsked = shown.view !== 'local';
  return (
    <section className="pane chart-pane" aria-labelledby="chart-title">
      <div className="pane-header">
        <h2 id="chart-title">Chart</h2>
        <span className="pane-symbol" data-testid="chart-symbol">
          {stores.ui.symbol.value}
        </span>
        <span className="chart-last" data-testid="chart-last">
          {last === null || !local ? '' : formatPrice(stores.ui.symbol.value, last)}
        </span>
        <span className="chart-spacer" />
        <div className="chart-intervals" role="group" aria-label="Interval">
          {QUICK_INTERVALS.map((i) => (
            <button
              key={i}
              type="button"
              className={i === interval ? 'chart-interval active' : 'chart-interval'}
              aria-pressed={i === interval}
              onClick={() => void terminal.execute(`chart ${i}`, 'ui')}
            >
              {i}
            </button>
          ))}
        </div>
        <button
          type="button"
          className={tvAsked ? 'chart-interval chart-source active' : 'chart-interval chart-source'}
          aria-pressed={tvAsked}
          aria-label="TV (TradingView)"
          title={tvAsked ? 'Back to the offline chart (chart local)' : "TradingView's chart (chart tv)"}
          onClick={() => void terminal.execute(tvAsked ? 'chart local' : 'chart tv', 'ui')}
        >
          TV
        </button>
      </div>
      <div
        className="pane-body chart-body"
        data-testid="chart-body"
        data-state={state}
        data-interval={interval}
        data-view={shown.view}
      >
        <div className="chart-canvas" ref={container} hidden={!local} />
        {/* In the corner under the price scale, as TradingView puts it; its widget shows its own. */}
        {local && <span className="chart-tz">UTC</span>}
        {shown.view === 'tv' && <TradingViewChart model={stores.chartSource} />}
        {local && state === 'loading' && (
          <div className="chart-overlay">Loading {stores.ui.symbol.value}…</div>
        )}
        {local && failed && (
          <div className="chart-overlay chart-error" role="alert">
            The chart could not be loaded. Reload the page to try again.
          </div>
        )}
        {local && !failed && state === 'error' && (
          <div className="chart-overlay chart-error" role="alert">
            {chart.error.value}
          </div>
        )}
        {shown.view === 'loading' && <div className="chart-note">Loading TradingView…</div>}
        {shown.view === 'local' && shown.note !== null && (
          <div className="chart-note" role="status" data-testid="chart-note">
            {shown.note}
          </div>
        )}
        {local && (
          <ul className="sr-only" aria-label="News on the chart" data-testid="chart-markers">
            {markers.map((m) => (
              <li key={m.id}>
                {m.sentiment}: {m.headline}
              </li>
            ))}
          </ul>
        )}
        {local && !failed && (
          <ChartPositionOverlay
            position={position.position}
            mover={position.mover}
            marks={position.marks}
            grips={position.grips}
            touch={COARSE_POINTER()}
          />
        )}
        {local && hover !== null && (
          <div
            className={`chart-tooltip ${hover.marker.sentiment}`}
            data-testid="marker-tooltip"
            style={{ left: hover.x + 12, top: hover.y + 12 }}
          >
            {hover.marker.headline}
          </div>
        )}
      </div>
    </section>
  );
}
