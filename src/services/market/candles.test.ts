import { describe, expect, it } from 'vitest';
import type { Candle } from '../../contracts/market';
import type { ChartSignal } from '../stores/market';
import { applyCandle, applyPrice, chartMarkers, toBar, toVolume } from './candles';
import { formatPrice } from '../trading/format';
import { searchSymbols } from './search';

const M15 = 15 * 60_000;
const c = (time: number, o: number, h: number, l: number, cl: number, v = 1): Candle => ({
  time,
  open: o,
  high: h,
  low: l,
  close: cl,
  volume: v,
});
const history = [c(0, 10, 12, 9, 11), c(M15, 11, 13, 10, 12)];

describe('live candles', () => {
  it('a candle update replaces the last candle or appends the next; older ones are ignored', () => {
    expect(applyCandle(history, c(M15, 11, 14, 10, 13, 5))?.at(-1)).toEqual(c(M15, 11, 14, 10, 13, 5));
    expect(applyCandle(history, c(2 * M15, 12, 12, 12, 12))).toHaveLength(3);
    expect(applyCandle(history, c(0, 1, 1, 1, 1))).toBeNull();
    expect(applyCandle([], c(0, 1, 1, 1, 1))).toBeNull();
  });

  it('a price moves the close and stretches high/low; in the next interval it opens a candle', () => {
    expect(applyPrice(history, 14, M15 + 1_000, '15m')?.at(-1)).toEqual(c(M15, 11, 14, 10, 14));
    expect(applyPrice(history, 9.5, M15 + 1_000, '15m')?.at(-1)).toEqual(c(M15, 11, 13, 9.5, 9.5));
    expect(applyPrice(history, 12, M15 + 1_000, '15m')).toBeNull(); // unchanged
    const next = applyPrice(history, 12.5, 2 * M15 + 5, '15m');
    expect(next?.at(-1)).toEqual(c(2 * M15, 12, 12.5, 12, 12.5, 0));
    expect(applyPrice(history, 1, 10, '15m')).toBeNull(); // before the last candle
  });

  it('converts to the chart units: seconds, volume tinted by direction', () => {
    expect(toBar(c(M15, 11, 13, 10, 12))).toEqual({ time: 900, open: 11, high: 13, low: 10, close: 12 });
    expect(toVolume(c(M15, 11, 13, 10, 12, 7))).toEqual({ time: 900, value: 7, color: '#0ecb8166' });
    expect(toVolume(c(M15, 12, 13, 10, 11, 7)).color).toBe('#f6465d66');
  });
});

describe('news markers', () => {
  const signals: ChartSignal[] = [
    { id: 'a', assets: ['BTC'], sentiment: 'positive', headline: 'ETF inflows', receivedAt: M15 + 60_000 },
    { id: 'b', assets: ['ETH', 'btc'], sentiment: 'negative', headline: 'Exploit', receivedAt: 30_000 },
    { id: 'c', assets: ['BTC'], sentiment: 'neutral', headline: 'Conference', receivedAt: M15 + 5 },
    { id: 'd', assets: ['SOL'], sentiment: 'positive', headline: 'Not BTC', receivedAt: 10 },
    { id: 'e', assets: ['BTC'], sentiment: 'positive', headline: 'Too old', receivedAt: -M15 },
  ];

  it('puts every signal about the ticker on its arrival candle, coloured by sentiment', () => {
    expect(chartMarkers(signals, 'BTC', '15m', history)).toEqual([
      {
        id: 'b',
        time: 0,
        position: 'aboveBar',
        shape: 'arrowDown',
        color: '#f6465d',
        headline: 'Exploit',
        sentiment: 'negative',
      },
      {
        id: 'a',
        time: 900,
        position: 'belowBar',
        shape: 'arrowUp',
        color: '#0ecb81',
        headline: 'ETF inflows',
        sentiment: 'positive',
      },
      {
        id: 'c',
        time: 900,
        position: 'aboveBar',
        shape: 'circle',
        color: '#848e9c',
        headline: 'Conference',
        sentiment: 'neutral',
      },
    ]);
    expect(chartMarkers(signals, 'SOL', '15m', history).map((m) => m.id)).toEqual(['d']);
    expect(chartMarkers(signals, 'BTC', '15m', [])).toEqual([]);
  });
});

describe('symbol search and prices', () => {
  it('matches ticker prefixes first, then names; ignores a /USDT suffix; caps the list', () => {
    expect(searchSymbols('bt').map((s) => s.ticker)).toEqual(['BTC']);
    expect(searchSymbols('ETH').map((s) => s.ticker)).toEqual(['ETH', 'ETHFI', 'ETC', 'ENA', 'ENS']);
    expect(searchSymbols('eth/usdt').map((s) => s.ticker)[0]).toBe('ETH');
    expect(searchSymbols('doge')[0]).toMatchObject({ pair: 'DOGE/USDT', name: 'Dogecoin' });
    expect(searchSymbols('bitc').map((s) => s.ticker)).toEqual(['BTC', 'BCH']);
    expect(searchSymbols('a', 5)).toHaveLength(5);
    expect(searchSymbols('  ')).toEqual([]);
    expect(searchSymbols('zzzz')).toEqual([]);
  });

  it("shows the chart's last price at the symbol's tick, $-- for none", () => {
    expect(formatPrice('BTC/USDT', 97_123.4)).toBe('97,123.4');
    expect(formatPrice('ZIL/USDT', 0.02305)).toBe('0.02305');
    expect(formatPrice('BTC/USDT', 0)).toBe('$--');
  });
});
