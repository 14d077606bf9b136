import { describe, expect, it } from 'vitest';
import { INTERVALS } from '../../contracts/market';
import { tradingViewInterval, tradingViewSymbol, widgetOptions } from './tradingView';

describe('TradingView names', () => {
  it('names our pair as the Binance USD-M perpetual', () => {
    expect(tradingViewSymbol('BTC')).toBe('BINANCE:BTCUSDT.P');
    expect(tradingViewSymbol('eth')).toBe('BINANCE:ETHUSDT.P');
    expect(tradingViewSymbol('1000PEPE')).toBe('BINANCE:1000PEPEUSDT.P');
  });

  it('gives every interval in minutes, and a day as D', () => {
    expect(Object.fromEntries(INTERVALS.map((i) => [i, tradingViewInterval(i)]))).toEqual({
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
    });
  });

  it("builds the spec's widget: the container, UTC, dark, candles, symbol change allowed", () => {
    expect(widgetOptions({ symbol: 'BINANCE:SOLUSDT.P', interval: '15' }, 'tv-chart')).toEqual({
      container_id: 'tv-chart',
      symbol: 'BINANCE:SOLUSDT.P',
      interval: '15',
      autosize: true,
      timezone: 'Etc/UTC',
      theme: 'dark',
      style: '1',
      locale: 'en',
      toolbar_bg: '#0b0e11',
      allow_symbol_change: true,
      enable_publishing: false,
      save_image: false,
    });
  });
});
