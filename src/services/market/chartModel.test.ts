import { describe, expect, it, vi } from 'vitest';
import type { Candle, Interval, PriceItem } from '../../contracts/market';
import { createApi } from '../api';
import { createStores } from '../stores';
import { createFakeServer } from '../testing/fakeServer';
import { createChartModel } from './chartModel';
import type { CandleUpdate, PriceChannel } from './priceChannel';

const M15 = 15 * 60_000;
const candle = (time: number, close: number): Candle => ({
  time,
  open: close,
  high: close,
  low: close,
  close,
  volume: 1,
});

/** A channel the test drives: it records watches and the chart, and pushes prices and candles. */
function fakeChannel() {
  const watched: string[] = [];
  const charts: (string | null)[] = [];
  const prices = new Set<(items: readonly PriceItem[]) => void>();
  const candles = new Set<(u: CandleUpdate) => void>();
  const channel: PriceChannel = {
    start: () => () => undefined,
    watch(symbol) {
      watched.push(symbol);
      return () => watched.splice(watched.indexOf(symbol), 1);
    },
    setChart(symbol: string | null, interval: Interval) {
      charts.push(symbol === null ? null : `${symbol}:${interval}`);
    },
    onPrices(l) {
      prices.add(l);
      return () => prices.delete(l);
    },
    onCandle(l) {
      candles.add(l);
      return () => candles.delete(l);
    },
  };
  return {
    channel,
    watched,
    charts,
    price: (item: PriceItem) => prices.forEach((l) => l([item])),
    candle: (u: CandleUpdate) => candles.forEach((l) => l(u)),
    listeners: () => prices.size + candles.size,
  };
}

function setup() {
  const server = createFakeServer();
  const stores = createStores();
  const urls: string[] = [];
  const api = createApi({
    mainBase: '/api',
    tradingBase: '/api',
    fetch: (input, init) => {
      urls.push(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
      return server.fetch(input, init);
    },
    tokens: stores.session,
    navigate: () => undefined,
  });
  const fake = fakeChannel();
  const model = createChartModel({
    ui: stores.ui,
    market: stores.market,
    api: api.trading,
    channel: fake.channel,
  });
  server.on('GET /klines', () => ({ status: 200, body: [candle(0, 100), candle(M15, 101)] }));
  return { server, stores, model, fake, urls };
}

describe('chart model', () => {
  it('loads 500 candles of the chosen symbol and interval, and reloads on a change', async () => {
    const { stores, model, fake, urls } = setup();
    const stop = model.start();
    await vi.waitFor(() => expect(model.state.value).toBe('ready'));
    expect(model.view.value).toEqual({ revision: 1, candles: [candle(0, 100), candle(M15, 101)] });
    expect(model.lastPrice.value).toBe(101);
    expect(fake.watched).toEqual(['BTCUSDT']);
    expect(fake.charts).toEqual(['BTCUSDT:15m']);

    stores.ui.chooseTicker('ETH');
    stores.market.chooseInterval('1h');
    // The ETH 15m answer arrives after the interval changed: it is dropped, only ETH 1h is drawn.
    await vi.waitFor(() => expect(urls).toHaveLength(3));
    await vi.waitFor(() => expect(model.view.value.revision).toBe(2));
    expect(fake.watched).toEqual(['ETHUSDT']);
    expect(fake.charts).toEqual(['BTCUSDT:15m', 'ETHUSDT:15m', 'ETHUSDT:1h']);
    expect(urls).toEqual([
      '/api/klines?symbol=BTCUSDT&interval=15m&limit=500',
      '/api/klines?symbol=ETHUSDT&interval=15m&limit=500',
      '/api/klines?symbol=ETHUSDT&interval=1h&limit=500',
    ]);
    stop();
    expect(fake.watched).toEqual([]);
    expect(fake.charts.at(-1)).toBeNull();
    expect(fake.listeners()).toBe(0);
  });

  it('keeps the last candle live from the price socket: prices and candle updates', async () => {
    const { model, fake } = setup();
    model.start();
    await vi.waitFor(() => expect(model.state.value).toBe('ready'));
    fake.price({ s: 'BTCUSDT', p: 105, t: M15 + 10 });
    expect(model.view.value.candles.at(-1)).toEqual({ ...candle(M15, 101), high: 105, close: 105 });
    fake.price({ s: 'ETHUSDT', p: 1, t: M15 + 20 }); // another symbol: ignored
    fake.candle({ s: 'BTCUSDT', i: '15m', candle: { ...candle(2 * M15, 106), volume: 9 } });
    expect(model.view.value.candles).toHaveLength(3);
    fake.candle({ s: 'BTCUSDT', i: '1h', candle: candle(3 * M15, 1) }); // another interval: ignored
    expect(model.view.value.candles).toHaveLength(3);
    expect(model.view.value.revision).toBe(1); // live updates never force a full redraw
  });

  it('shows the server error when candles cannot be loaded', async () => {
    const { server, model } = setup();
    server.on('GET /klines', () => ({
      status: 503,
      body: { detail: 'Market data is unavailable right now.' },
    }));
    model.start();
    await vi.waitFor(() => expect(model.state.value).toBe('error'));
    expect(model.error.value).toBe('Market data is unavailable right now.');
  });

  it('marks the news signals about the chosen symbol', async () => {
    const { stores, model } = setup();
    model.start();
    await vi.waitFor(() => expect(model.state.value).toBe('ready'));
    stores.market.showSignals([
      { id: 's1', assets: ['BTC'], sentiment: 'negative', headline: 'Hack', receivedAt: M15 + 1 },
      { id: 's2', assets: ['ETH'], sentiment: 'positive', headline: 'Upgrade', receivedAt: 5 },
    ]);
    expect(model.markers.value.map((m) => [m.id, m.time, m.color])).toEqual([['s1', 900, '#f6465d']]);
  });
});
