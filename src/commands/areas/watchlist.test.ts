import { describe, expect, it } from 'vitest';
import { createTestConsole } from '../testing/scripted';

function session(token: string | null = 'tok') {
  const s = createTestConsole({ token });
  const list: string[] = [];
  s.server.on('GET /watchlist/', () => ({ status: 200, body: list.map((ticker) => ({ ticker })) }));
  s.server.on('POST /watchlist/', (r) => {
    const { ticker } = JSON.parse(r.body ?? '{}') as { ticker: string };
    const created = !list.includes(ticker);
    if (created) list.push(ticker);
    return { status: created ? 201 : 200, body: { ticker } };
  });
  for (const t of ['BTC', 'ETH', 'SOL']) {
    s.server.on(`DELETE /watchlist/${t}`, () => {
      const at = list.indexOf(t);
      if (at === -1) return { status: 404, body: { detail: `${t} is not on your watchlist.` } };
      list.splice(at, 1);
      return { status: 204 };
    });
  }
  return { ...s, list };
}

describe('watchlist commands', () => {
  it('watch, watchlist and unwatch round-trip the server and the store', async () => {
    const s = session();
    expect(await s.type('watchlist')).toEqual([
      'muted: Your watchlist is empty. Add an asset with: watch <ticker>',
    ]);
    expect(await s.type('watch btc')).toEqual(['success: Watching BTC.']);
    expect(await s.type('watch ETH')).toEqual(['success: Watching ETH.']);
    expect(await s.type('watch btc')).toEqual(['success: Watching BTC.']);
    expect(s.list).toEqual(['BTC', 'ETH']);
    expect(s.stores.watchlist.tickers.value).toEqual(['BTC', 'ETH']);
    expect(await s.type('wl')).toEqual(['info: Watchlist: BTC, ETH']);
    expect(await s.type('unwatch btc')).toEqual(['success: Stopped watching BTC.']);
    expect(s.list).toEqual(['ETH']);
    expect(s.stores.watchlist.tickers.value).toEqual(['ETH']);
  });

  it('needs a login (the login modal opens) and a supported ticker', async () => {
    const guest = session(null);
    for (const line of ['watch btc', 'unwatch btc', 'watchlist']) {
      expect(await guest.type(line)).toEqual(['error: You must be logged in.']);
    }
    expect(guest.stores.ui.authModal.value).toBe('login');
    expect(guest.server.requests).toEqual([]);
    const s = session();
    expect((await s.type('watch zzz'))[0]).toBe(
      'error: Unknown symbol: ZZZ. Type a ticker such as BTC or ETH.',
    );
  });

  it('says when the server refuses', async () => {
    const s = session();
    s.server.on('POST /watchlist/', () => ({
      status: 503,
      body: { detail: 'Service temporarily unavailable.' },
    }));
    expect(await s.type('watch sol')).toEqual(['error: Service temporarily unavailable.']);
    expect(s.stores.watchlist.tickers.value).toEqual([]);
  });

  it('completes unwatch from the watched tickers', async () => {
    const s = session();
    await s.type('watch sol');
    await s.type('watch eth');
    expect(s.complete('unwatch ')).toEqual(['eth', 'sol']);
  });
});
