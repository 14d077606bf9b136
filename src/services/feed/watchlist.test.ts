import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../testing/fakeClock';
import {
  createWatchlistStore,
  createWatchlistToggles,
  loadWatchlist,
  unwatchTicker,
  watchTicker,
} from './watchlist';
import { createFakeApi } from '../testing/fakeApi';

function setup() {
  const { server, api } = createFakeApi('tok');
  const store = createWatchlistStore();
  const clock = createFakeClock();
  const toggles = createWatchlistToggles({ main: api.main, store, clock });
  return { server, main: api.main, store, clock, toggles };
}

describe('watchlist calls (docs/product.md §7)', () => {
  it('loads, adds upper-cased and removes through the API', async () => {
    const t = setup();
    t.server.on('GET /watchlist/', () => ({ status: 200, body: [{ ticker: 'ETH' }] }));
    t.server.on('POST /watchlist/', (r) => ({ status: 201, body: JSON.parse(r.body ?? '{}') as object }));
    t.server.on('DELETE /watchlist/ETH', () => ({ status: 204 }));
    expect(await loadWatchlist(t.main, t.store)).toEqual({ ok: true, tickers: ['ETH'] });
    expect(await watchTicker(t.main, t.store, 'btc')).toEqual({ ok: true, tickers: ['ETH', 'BTC'] });
    expect(JSON.parse(t.server.requests[1]?.body ?? '{}')).toEqual({ ticker: 'BTC' });
    expect(await unwatchTicker(t.main, t.store, 'eth')).toEqual({ ok: true, tickers: ['BTC'] });
    expect(t.store.watched.value.has('BTC')).toBe(true);
  });

  it('refuses an unknown ticker without a call, and passes the server detail on', async () => {
    const t = setup();
    expect(await watchTicker(t.main, t.store, 'zzz')).toMatchObject({ ok: false });
    expect(t.server.requests).toEqual([]);
    t.server.on('POST /watchlist/', () => ({ status: 400, body: { detail: 'Unknown ticker: BTC.' } }));
    expect(await watchTicker(t.main, t.store, 'BTC')).toEqual({ ok: false, message: 'Unknown ticker: BTC.' });
  });

  it('a card toggle adds then removes, and one already gone counts as removed', async () => {
    const t = setup();
    t.server.on('POST /watchlist/', () => ({ status: 201, body: { ticker: 'SOL' } }));
    t.server.on('DELETE /watchlist/SOL', () => ({
      status: 404,
      body: { detail: 'SOL is not on your watchlist.' },
    }));
    await t.toggles.toggle('SOL');
    expect(t.store.tickers.value).toEqual(['SOL']);
    await t.toggles.toggle('SOL');
    expect(t.store.tickers.value).toEqual([]);
    expect(t.toggles.notice.value).toBeNull();
  });

  it('shows "Failed to update watchlist." for 5 s when the server refuses', async () => {
    const t = setup();
    t.server.on('POST /watchlist/', () => ({ status: 500, body: { detail: 'Internal Server Error' } }));
    await t.toggles.toggle('BTC');
    expect(t.toggles.notice.value).toBe('Failed to update watchlist.');
    expect(t.store.tickers.value).toEqual([]);
    t.clock.advance(4_999);
    expect(t.toggles.notice.value).toBe('Failed to update watchlist.');
    t.clock.advance(1);
    expect(t.toggles.notice.value).toBeNull();
    expect(t.toggles.pending.value.size).toBe(0);
  });
});
