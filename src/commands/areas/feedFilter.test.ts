import { describe, expect, it } from 'vitest';
import { FEED_FILTER_KEY } from '../../services/feed/feedFilter';
import { completed, makeSignal } from '../../services/feed/testing/signals';
import { createTestConsole } from '../testing/scripted';

/** A console whose feed holds (top first) a perpetual listing, a hack, and a rate decision. */
function session(token: string | null = null) {
  const s = createTestConsole({ token });
  s.stores.feed.receive(completed(makeSignal(1, { content: 'Fed holds rates' }), 'neutral', 30));
  s.stores.feed.receive(completed(makeSignal(2, { content: 'Exchange hack drains $40M' }), 'negative', 90));
  s.stores.feed.receive(
    completed(makeSignal(3, { content: 'Binance listing: SOL perpetual' }), 'positive', 80, ['SOL']),
  );
  return s;
}

const headlines = (s: ReturnType<typeof session>) => s.stores.feedView.visible.peek().map((x) => x.content);

describe('feed filter command', () => {
  it('keeps a visitor’s filter in this browser and hides what it leaves out at once', async () => {
    const s = session();
    expect(await s.type('feed filter')).toEqual(['info: Feed filter (kept in this browser): none.']);
    expect(await s.type('feed filter --include listing,hack --exclude perpetual')).toEqual([
      'success: Feed filter saved: include "listing" or "hack"; exclude "perpetual" (2 of the feed\'s signals hidden).',
    ]);
    expect(headlines(s)).toEqual(['Exchange hack drains $40M']);
    expect(JSON.parse(s.storage.get(FEED_FILTER_KEY) ?? 'null')).toEqual({
      include: ['listing', 'hack'],
      exclude: ['perpetual'],
    });
    // A list not given stays; an empty one clears only that list.
    expect(await s.type('feed filter --exclude ""')).toEqual([
      'success: Feed filter saved: include "listing" or "hack" (1 of the feed\'s signals hidden).',
    ]);
    expect((await s.type('feed')).map((l) => l.split('News: ')[1])).toEqual([
      'Binance listing: SOL perpetual',
      'Exchange hack drains $40M',
    ]);
    expect(await s.type('feed filter clear')).toEqual(['success: Feed filter cleared: every signal shows.']);
    expect(headlines(s)).toHaveLength(3);
    expect(s.storage.get(FEED_FILTER_KEY)).toBeNull();
    expect(s.server.requests).toEqual([]);
  });

  it('saves a signed-in account’s filter on the server, shown as it answered', async () => {
    const s = session('tok');
    s.server.on('PUT /users/me/feed-filter', (r) => ({ status: 200, body: JSON.parse(r.body ?? '{}') }));
    expect(await s.type('feed filter --exclude "Perpetual, spot etf"')).toEqual([
      'success: Feed filter saved: exclude "Perpetual", "spot etf" (1 of the feed\'s signals hidden).',
    ]);
    expect(JSON.parse(s.server.requests.at(-1)?.body ?? '{}')).toEqual({
      include: [],
      exclude: ['Perpetual', 'spot etf'],
    });
    expect(await s.type('feed filter')).toEqual([
      'info: Feed filter: exclude "Perpetual", "spot etf" (1 of the feed\'s signals hidden).',
    ]);
    expect(s.storage.get(FEED_FILTER_KEY)).toBeNull();
  });

  it('says what is wrong with the words before asking the server, and what the server said', async () => {
    const s = session('tok');
    const many = Array.from({ length: 21 }, (_, i) => `w${i}`).join(',');
    expect(await s.type(`feed filter --include ${many}`)).toEqual([
      'error: Include may hold at most 20 words or phrases.',
    ]);
    expect(await s.type(`feed filter --exclude ${'x'.repeat(61)}`)).toEqual([
      'error: Each exclude word or phrase must be 1 to 60 characters.',
    ]);
    expect(s.server.count('PUT /users/me/feed-filter')).toBe(0);
    s.server.on('PUT /users/me/feed-filter', () => ({
      status: 503,
      body: { detail: 'The database is not answering right now. Try again in a moment.' },
    }));
    expect(await s.type('feed filter --include hack')).toEqual([
      'error: The database is not answering right now. Try again in a moment.',
    ]);
    expect(headlines(s)).toHaveLength(3);
  });
});
