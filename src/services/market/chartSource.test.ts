import { describe, expect, it } from 'vitest';
import { memoryStorage } from '../storage';
import { createStores } from '../stores';
import { CHART_SOURCE_KEY } from '../stores/ui';
import { createFakeClock } from '../testing/fakeClock';
import { createFakeTradingView, type FakeLoadAnswer } from '../testing/fakeTradingView';
import { CHART_SOURCE_TEXT, createChartSourceModel } from './chartSource';
import { TV_EMBED_URL, TV_LOAD_TIMEOUT_MS } from './tradingView';

function setup(options: { online?: boolean; answer?: FakeLoadAnswer; saved?: 'tv' | 'local' } = {}) {
  const clock = createFakeClock(1_000);
  const tv = createFakeTradingView(options);
  const storage = memoryStorage(
    options.saved === undefined ? {} : { [CHART_SOURCE_KEY]: JSON.stringify(options.saved) },
  );
  const stores = createStores({ storage, clock, tradingView: tv.port });
  return { clock, tv, storage, stores, model: stores.chartSource };
}

describe('chart source', () => {
  it('shows the offline chart until TradingView is asked for, then the widget once TradingView answered', async () => {
    const { model, tv, storage, stores, clock } = setup();
    expect(model.shown.value).toEqual({ view: 'local', note: null });
    expect(await model.choose('tv')).toEqual({ view: 'tv' });
    expect(model.shown.value).toEqual({ view: 'tv' });
    expect(tv.loads).toEqual([TV_EMBED_URL]);
    expect(stores.ui.chartSource.value).toBe('tv');
    expect(storage.get(CHART_SOURCE_KEY)).toBe('"tv"');
    expect(clock.pendingTimers()).toBe(0);

    expect(await model.choose('local')).toEqual({ view: 'local', note: null });
    expect(storage.get(CHART_SOURCE_KEY)).toBe('"local"');
  });

  it('keeps the offline chart and says why when the browser is offline, without trying to load', async () => {
    const { model, tv, stores } = setup({ online: false });
    expect(await model.choose('tv')).toEqual({ view: 'local', note: CHART_SOURCE_TEXT.offline });
    expect(CHART_SOURCE_TEXT.offline).toBe('TradingView needs the internet; showing the offline chart.');
    expect(tv.loads).toEqual([]);
    // The choice is remembered: the next visit online shows TradingView.
    expect(stores.ui.chartSource.value).toBe('tv');
  });

  it('falls back when TradingView cannot be reached', async () => {
    const { model, clock } = setup({ answer: false });
    expect(await model.choose('tv')).toEqual({ view: 'local', note: CHART_SOURCE_TEXT.failed });
    expect(clock.pendingTimers()).toBe(0);
  });

  it('waits a few seconds for TradingView, showing that it loads, then falls back; a late answer changes nothing', async () => {
    const { model, tv, clock } = setup({ answer: 'hang' });
    const answer = model.choose('tv');
    expect(model.shown.value).toEqual({ view: 'loading' });
    clock.advance(TV_LOAD_TIMEOUT_MS - 1);
    expect(model.shown.value).toEqual({ view: 'loading' });
    clock.advance(1);
    expect(await answer).toEqual({ view: 'local', note: CHART_SOURCE_TEXT.timeout });
    expect(CHART_SOURCE_TEXT.timeout).toBe('TradingView did not load within 5 s; showing the offline chart.');
    tv.finishLoad(true);
    await Promise.resolve();
    expect(model.shown.value).toEqual({ view: 'local', note: CHART_SOURCE_TEXT.timeout });
  });

  it('chart local while TradingView is on its way wins, and both answers say what is shown', async () => {
    const { model, tv, clock } = setup({ answer: 'hang' });
    const first = model.choose('tv');
    const again = model.choose('tv');
    expect(tv.loads).toHaveLength(1);
    expect(await model.choose('local')).toEqual({ view: 'local', note: null });
    tv.finishLoad(true);
    expect(await first).toEqual({ view: 'local', note: null });
    expect(await again).toEqual({ view: 'local', note: null });
    expect(clock.pendingTimers()).toBe(0);
  });

  it('tries again on a later chart tv once the internet is back', async () => {
    const { model, tv } = setup({ online: false });
    await model.choose('tv');
    tv.setOnline(true);
    expect(await model.choose('tv')).toEqual({ view: 'tv' });
  });

  it('starts with the remembered choice', async () => {
    const remembered = setup({ saved: 'tv', answer: 'hang' });
    const stop = remembered.model.start();
    expect(remembered.model.shown.value).toEqual({ view: 'loading' });
    remembered.tv.finishLoad(true);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(remembered.model.shown.value).toEqual({ view: 'tv' });
    stop();

    const plain = setup();
    plain.model.start()();
    expect(plain.tv.loads).toEqual([]);
    expect(plain.model.shown.value).toEqual({ view: 'local', note: null });
  });

  it('shows the frame for the chosen symbol and interval, a new one on a change, and takes it out on dispose', async () => {
    const { model, tv, stores } = setup();
    const early = model.mount('tv-chart');
    expect(tv.created).toEqual([]); // nothing while the offline chart is shown
    early();

    await model.choose('tv');
    const unmount = model.mount('tv-chart');
    const query = (url: string) => Object.fromEntries(new URL(url).searchParams);
    expect(tv.created.map((f) => [f.containerId, f.frameId, new URL(f.url).origin])).toEqual([
      ['tv-chart', 'tv-chart-frame', 'https://s.tradingview.com'],
    ]);
    expect(query(tv.created[0]?.url ?? '')).toMatchObject({
      frameElementId: 'tv-chart-frame',
      symbol: 'BINANCE:BTCUSDT.P',
      interval: '15',
    });
    stores.ui.chooseTicker('ETH');
    stores.market.chooseInterval('4h');
    expect(tv.created.slice(1).map((f) => [query(f.url).symbol, query(f.url).interval])).toEqual([
      ['BINANCE:ETHUSDT.P', '15'],
      ['BINANCE:ETHUSDT.P', '240'],
    ]);
    expect(tv.onScreen()).toBe(1);
    unmount();
    expect(tv.onScreen()).toBe(0);
  });

  it('falls back when the frame cannot be shown', async () => {
    const { model, tv } = setup();
    await model.choose('tv');
    tv.breakWidget();
    model.mount('tv-chart')();
    expect(model.shown.value).toEqual({ view: 'local', note: CHART_SOURCE_TEXT.broken });
  });

  it('says there is no chart where there is no browser (the CLI)', async () => {
    const stores = createStores();
    const model = createChartSourceModel({
      ui: stores.ui,
      market: stores.market,
      clock: createFakeClock(),
      port: null,
    });
    expect(await model.choose('tv')).toEqual({ view: 'local', note: CHART_SOURCE_TEXT.noChart });
  });
});
