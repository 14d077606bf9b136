import { candleOpenTime, type Candle, type Interval } from '../../contracts/market';
import type { ChartSignal } from '../stores/market';

/**
 * Candle maths for the chart, without the chart: merging live updates into the loaded history, the
 * series data in the chart's units (seconds), and news markers.
 */

/** A candle from the price socket: replaces the last candle, or starts the next one. */
export function applyCandle(candles: readonly Candle[], candle: Candle): Candle[] | null {
  const last = candles.at(-1);
  if (last === undefined || candle.time < last.time) return null;
  return candle.time === last.time ? [...candles.slice(0, -1), candle] : [...candles, candle];
}

/** A price tick: moves the last candle's close (and high/low), or opens the next candle at that price. */
export function applyPrice(
  candles: readonly Candle[],
  price: number,
  time: number,
  interval: Interval,
): Candle[] | null {
  const last = candles.at(-1);
  if (last === undefined) return null;
  const open = candleOpenTime(time, interval);
  if (open < last.time) return null;
  if (open > last.time) {
    const next = {
      time: open,
      open: last.close,
      high: Math.max(last.close, price),
      low: Math.min(last.close, price),
      close: price,
      volume: 0,
    };
    return [...candles, next];
  }
  if (price === last.close) return null;
  const updated = { ...last, high: Math.max(last.high, price), low: Math.min(last.low, price), close: price };
  return [...candles.slice(0, -1), updated];
}

export const UP = '#0ecb81';
export const DOWN = '#f6465d';
export const NEUTRAL = '#848e9c';

export interface ChartBar {
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
}
export interface VolumeBar {
  time: number;
  value: number;
  color: string;
}

const seconds = (ms: number): number => Math.floor(ms / 1000);

export function toBar(c: Candle): ChartBar {
  return { time: seconds(c.time), open: c.open, high: c.high, low: c.low, close: c.close };
}

/** Volume bars tinted like their candle, dimmed so the candles stay in front. */
export function toVolume(c: Candle): VolumeBar {
  return { time: seconds(c.time), value: c.volume, color: c.close >= c.open ? `${UP}66` : `${DOWN}66` };
}

export interface ChartMarker {
  id: string;
  time: number;
  position: 'aboveBar' | 'belowBar';
  shape: 'arrowUp' | 'arrowDown' | 'circle';
  color: string;
  headline: string;
  sentiment: ChartSignal['sentiment'];
}

/**
 * A marker for every signal about `ticker` that arrived within the loaded candles, on the candle of its
 * arrival: positive below the bar pointing up (green), negative above pointing down (red), neutral grey.
 */
export function chartMarkers(
  signals: readonly ChartSignal[],
  ticker: string,
  interval: Interval,
  candles: readonly Candle[],
): ChartMarker[] {
  const first = candles[0]?.time;
  const last = candles.at(-1)?.time;
  if (first === undefined || last === undefined) return [];
  return signals
    .filter((s) => s.assets.some((a) => a.toUpperCase() === ticker))
    .map((s) => ({ s, open: candleOpenTime(s.receivedAt, interval) }))
    .filter(({ open }) => open >= first && open <= last)
    .sort((a, b) => a.open - b.open)
    .map(({ s, open }) => ({
      id: s.id,
      time: seconds(open),
      position: s.sentiment === 'positive' ? 'belowBar' : 'aboveBar',
      shape: s.sentiment === 'positive' ? 'arrowUp' : s.sentiment === 'negative' ? 'arrowDown' : 'circle',
      color: s.sentiment === 'positive' ? UP : s.sentiment === 'negative' ? DOWN : NEUTRAL,
      headline: s.headline,
      sentiment: s.sentiment,
    }));
}
