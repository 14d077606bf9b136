import { describe, expect, it } from 'vitest';
import { createApi } from '../api';
import { memoryStorage } from '../storage';
import { createStores } from '../stores';
import { createFakeClock } from '../testing/fakeClock';
import { createFakeServer } from '../testing/fakeServer';
import { createFeedService } from './feedService';
import { completed, fakeStream, makeSignal } from './testing/signals';
import { FEED_KEYS } from './types';

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

function setup(options: { storage?: ReturnType<typeof memoryStorage>; token?: string | null } = {}) {
  const server = createFakeServer();
  const clock = createFakeClock(Date.UTC(2026, 0, 1, 13));
  const storage = options.storage ?? memoryStorage();
  const sounds: string[] = [];
  const stores = createStores({ storage, clock });
  if (options.token != null) stores.session.setToken(options.token);
  const api = createApi({
    mainBase: '/api',
    tradingBase: '/api',
    fetch: server.fetch,
    tokens: stores.session,
    navigate: () => undefined,
  });
  const stream = fakeStream();
  const watching = new Map<string, number>();
  const prices = {
    watch(symbol: string) {
      watching.set(symbol, (watching.get(symbol) ?? 0) + 1);
      return () => watching.set(symbol, (watching.get(symbol) ?? 0) - 1);
    },
  };
  const feed = createFeedService({
    stores,
    main: api.main,
    trading: api.trading,
    mainBase: '/api',
    prices,
    stream: stream.port,
    sound: { play: (k) => void sounds.push(k) },
    clock,
  });
  const watched = () =>
    [...watching]
      .filter(([, n]) => n > 0)
      .map(([s]) => s)
      .sort();
  return { server, clock, storage, stores, stream, feed, sounds, watched };
}

describe('the feed service', () => {
  it('seeds a fresh browser from GET /api/signals, then follows the stream', async () => {
    const t = setup();
    t.server.on('GET /signals', () => ({
      status: 200,
      body: [completed(makeSignal(2), 'positive', 50, ['BTC'], { BTC: 1 }), makeSignal(1)],
    }));
    const stop = t.feed.start();
    await flush();
    expect(t.server.requests.map((r) => r.path)).toEqual(['/signals']);
    expect(t.stores.feed.signals.value.map((s) => s.id)).toEqual(['2', '1']);
    expect(t.stream.urls).toEqual(['/api/signals/stream']);
    t.stream.signal(makeSignal(3));
    expect(t.stores.feed.signals.value.map((s) => s.id)).toEqual(['3', '2', '1']);
    stop();
  });

  it('does not ask for history when this browser has a saved, analysed feed', async () => {
    const saved = { ...completed(makeSignal(7), 'neutral', 10), client_received_at: 1 };
    const storage = memoryStorage({ [FEED_KEYS.signals]: JSON.stringify([saved]) });
    const t = setup({ storage });
    const stop = t.feed.start();
    await flush();
    expect(t.server.count('GET /signals')).toBe(0);
    expect(t.stores.feed.signals.value.map((s) => s.id)).toEqual(['7']);
    stop();
  });

  it('a returning browser with a card left analyzing takes the finished copy from history, without alerting', async () => {
    const saved = { ...makeSignal(7), client_received_at: 5 };
    const storage = memoryStorage({ [FEED_KEYS.signals]: JSON.stringify([saved]) });
    const t = setup({ storage });
    t.server.on('GET /signals', () => ({
      status: 200,
      body: [makeSignal(8), completed(makeSignal(7), 'negative', 95, ['BTC'], { BTC: 1 })],
    }));
    const stop = t.feed.start();
    await flush();
    const list = t.stores.feed.signals.value;
    expect(list.map((s) => [s.id, s.analysis.status])).toEqual([
      ['8', 'analyzing'],
      ['7', 'completed'],
    ]);
    expect(list[1]?.client_received_at).toBe(5);
    expect(t.sounds).toEqual([]);
    stop();
  });

  it('is Live only with the stream and the price socket both up', () => {
    const t = setup();
    const stop = t.feed.start();
    t.stores.connection.setChannel('prices', true);
    expect(t.stores.connection.live.value).toBe(false);
    t.stream.status();
    expect(t.feed.channel.status.value?.analyzer).toBe('local');
    expect(t.stores.connection.live.value).toBe(true);
    t.stream.drop();
    expect(t.stores.connection.live.value).toBe(false);
    t.stream.open();
    expect(t.stores.connection.live.value).toBe(true);
    stop();
    expect(t.stores.connection.channels.value.signals).toBe(false);
    expect(t.stream.disconnects()).toBe(1);
  });

  it('shows a signal analyzing, then completed in place, and alerts once at the threshold', () => {
    const t = setup();
    const stop = t.feed.start();
    const s = makeSignal(1, { content: 'Exchange hacked' });
    t.stream.signal(s);
    t.stream.signal(makeSignal(2));
    expect(t.stores.feed.signals.value[1]?.analysis.status).toBe('analyzing');
    t.stream.signal(completed(s, 'negative', 88, ['ETH'], { ETH: 3000 }));
    expect(t.stores.feed.signals.value[1]?.analysis.status).toBe('completed');
    expect(t.sounds).toEqual(['negative']);
    expect([...t.stores.feed.highlighted.value]).toEqual(['1']);
    t.stream.signal(completed(s, 'negative', 88, ['ETH'], { ETH: 3000 }));
    expect(t.sounds).toEqual(['negative']);
    stop();
  });

  it('ignores frames that are not JSON or not a signal', () => {
    const t = setup();
    const stop = t.feed.start();
    t.stream.raw('signal', '{nope');
    t.stream.raw('signal', JSON.stringify({ id: 1 }));
    t.stream.raw('other', JSON.stringify(makeSignal(1)));
    expect(t.stores.feed.signals.value).toEqual([]);
    stop();
  });

  it('never looks up a price at arrival itself: an asset without one waits for the server to send it', async () => {
    const t = setup();
    t.server.on('GET /price/SOLUSDT', () => ({
      status: 200,
      body: { symbol: 'SOLUSDT', price: 150.5, time: 1 },
    }));
    const stop = t.feed.start();
    const done = completed(makeSignal(1), 'positive', 60, ['BTC', 'SOL'], { BTC: 100_000 });
    t.stream.signal(done);
    await flush();
    await flush();
    expect(t.server.requests.filter((r) => r.path.startsWith('/price/'))).toEqual([]);
    expect(t.stores.feed.signals.value[0]?.initial_prices).toEqual({ BTC: 100_000 });

    // The server's patch fills it, for every browser alike, and is not a second completion (no alert).
    t.stream.signal({ ...done, initial_prices: { BTC: 100_000, SOL: 149.75 } });
    expect(t.stores.feed.signals.value[0]?.initial_prices).toEqual({ BTC: 100_000, SOL: 149.75 });
    expect(t.sounds).toEqual([]);
    stop();
  });

  it("watches the prices of the listed signals' assets, and stops when they leave or on dispose", () => {
    const t = setup();
    const stop = t.feed.start();
    t.stream.signal(completed(makeSignal(1), 'positive', 60, ['BTC', 'NOTACOIN']));
    t.stream.signal(completed(makeSignal(2), 'negative', 60, ['ETH', 'BTC']));
    expect(t.watched()).toEqual(['BTCUSDT', 'ETHUSDT']);
    expect(t.stores.market.chartSignals.value.map((c) => [c.id, c.sentiment])).toEqual([
      ['2', 'negative'],
      ['1', 'positive'],
    ]);
    for (let i = 3; i <= 52; i += 1) t.stream.signal(makeSignal(i));
    expect(t.watched()).toEqual([]);
    t.stream.signal(completed(makeSignal(60), 'neutral', 10, ['DOGE']));
    stop();
    expect(t.watched()).toEqual([]);
  });

  it('loads the watchlist on login and forgets it on logout', async () => {
    const t = setup();
    t.server.on('GET /watchlist/', () => ({ status: 200, body: [{ ticker: 'BTC' }, { ticker: 'SOL' }] }));
    const stop = t.feed.start();
    expect(t.server.count('GET /watchlist/')).toBe(0);
    t.stores.session.setToken('tok');
    await flush();
    await flush();
    expect(t.stores.watchlist.tickers.value).toEqual(['BTC', 'SOL']);
    t.stores.session.clear();
    expect(t.stores.watchlist.tickers.value).toEqual([]);
    stop();
  });

  it("follows the account's feed filter: hidden cards neither show nor alert, and a change reads history again", async () => {
    const storage = memoryStorage({
      'signal-console.feedFilter': JSON.stringify({ include: [], exclude: ['rumour'] }),
    });
    const t = setup({ storage });
    t.server.on('GET /users/me/feed-filter', () => ({
      status: 200,
      body: { include: [], exclude: ['hack*'] },
    }));
    t.server.on('GET /signals', () => ({ status: 200, body: [] }));
    const stop = t.feed.start();
    await flush();
    expect(t.stores.feedFilter.filter.value.exclude).toEqual(['rumour']);
    t.stores.session.setToken('tok');
    await flush();
    await flush();
    expect(t.stores.feedFilter.filter.value).toEqual({ include: [], exclude: ['hack*'] });
    const hack = makeSignal(1, { content: 'Exchange hacked' });
    t.stream.signal(hack);
    t.stream.signal(completed(hack, 'negative', 95, ['ETH'], { ETH: 3000 }));
    expect(t.stores.feed.signals.value).toHaveLength(1);
    expect(t.stores.feedView.visible.value).toEqual([]);
    expect(t.stores.feedView.hiddenByWords.value).toBe(1);
    expect(t.sounds).toEqual([]);
    const history = t.server.count('GET /signals');
    t.stores.feedFilter.set({ include: [], exclude: [] });
    await flush();
    expect(t.server.count('GET /signals')).toBe(history + 1);
    expect(t.stores.feedView.visible.value.map((x) => x.id)).toEqual(['1']);
    // Signed out, this browser's own filter is back.
    t.stores.session.clear();
    expect(t.stores.feedFilter.filter.value.exclude).toEqual(['rumour']);
    stop();
  });

  it('ticks the time-ago clock every second and leaves no timer after dispose', () => {
    const t = setup();
    const stop = t.feed.start();
    const start = t.feed.now.value;
    t.clock.advance(3_000);
    expect(t.feed.now.value).toBe(start + 3_000);
    t.stream.signal(makeSignal(1));
    stop();
    expect(t.clock.pendingTimers()).toBe(0);
    expect(t.storage.get(FEED_KEYS.signals)).toContain('"id":"1"');
  });
});
