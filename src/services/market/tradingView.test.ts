import { describe, expect, it } from 'vitest';
import { INTERVALS } from '../../contracts/market';
import { TV_FRAME_SANDBOX, tradingViewEmbedUrl, tradingViewInterval, tradingViewSymbol } from './tradingView';

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

  it("builds the spec's widget as TradingView's embed page: UTC, dark, candles, symbol change allowed", () => {
    const url = tradingViewEmbedUrl({ symbol: 'BINANCE:SOLUSDT.P', interval: '15' }, 'tv-frame');
    expect(url).toBe(
      'https://s.tradingview.com/widgetembed/?frameElementId=tv-frame&symbol=BINANCE%3ASOLUSDT.P' +
        '&interval=15&theme=dark&style=1&timezone=Etc%2FUTC&locale=en&toolbarbg=0b0e11&symboledit=1' +
        '&saveimage=0&hidesidetoolbar=0',
    );
    expect(Object.fromEntries(new URL(url).searchParams)).toEqual({
      frameElementId: 'tv-frame',
      symbol: 'BINANCE:SOLUSDT.P',
      interval: '15',
      theme: 'dark',
      style: '1',
      timezone: 'Etc/UTC',
      locale: 'en',
      toolbarbg: '0b0e11',
      symboledit: '1',
      saveimage: '0',
      hidesidetoolbar: '0',
    });
  });

  it('sandboxes the frame: its scripts and origin, popups, and no way to navigate or reach our page', () => {
    expect(TV_FRAME_SANDBOX.split(' ').sort()).toEqual([
      'allow-popups',
      'allow-popups-to-escape-sandbox',
      'allow-same-origin',
      'allow-scripts',
    ]);
  });
});
