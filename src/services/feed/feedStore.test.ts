import { describe, expect, it } from 'vitest';
import { memoryStorage } from '../storage';
import { createFakeClock } from '../testing/fakeClock';
import { createFeedStore, SAVE_DELAY_MS } from './feedStore';
import { completed, makeSignal } from './testing/signals';
import { FEED_CAP, FEED_KEYS } from './types';

/** 13:00 UTC on the day the test signals were received (12:00). */
const T0 = Date.UTC(2026, 0, 1, 13);

function setup(initial: Record<string, string> = {}) {
  const storage = memoryStorage(initial);
  const clock = createFakeClock(T0);
  const feed = createFeedStore({ storage, clock });
  const saved = (): { id: string }[] | null => {
    const text = storage.get(FEED_KEYS.signals);
    return text === null ? null : (JSON.parse(text) as { id: string }[]);
  };
  return { storage, clock, feed, saved, ids: () => feed.signals.value.map((s) => s.id) };
}

describe('feed store rules (docs/product.md §4)', () => {
  it('puts a new signal on top and stamps when this browser received it', () => {
    const { feed, clock, ids } = setup();
    expect(feed.receive(makeSignal(1)).kind).toBe('added');
    clock.advance(5_000);
    feed.receive(makeSignal(2));
    expect(ids()).toEqual(['2', '1']);
    expect(feed.signals.value[0]?.client_received_at).toBe(T0 + 5_000);
    expect(feed.signals.value[1]?.client_received_at).toBe(T0);
  });

  it('puts an old story the list did not hold in its place by age, not on top, even on a skewed clock', () => {
    // This browser's clock runs 10 minutes ahead of the server's.
    const { feed, clock, ids } = setup();
    clock.advance(10 * 60_000);
    const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 12, minutes)).toISOString();
    feed.receive(makeSignal(10, { received_at: at(0) }));
    clock.advance(20 * 60_000);
    feed.receive(makeSignal(30, { received_at: at(20) }));
    // Story 5 (11:55) is marked retracted while this list holds 12:00 and 12:20: it goes to the bottom.
    const marked = feed.receive(makeSignal(5, { received_at: at(-5) }));
    expect(marked.kind).toBe('late');
    expect(ids()).toEqual(['30', '10', '5']);
    // Story 15 (12:10) goes between them; a story of 12:19 is news and goes on top as ever.
    expect(feed.receive(makeSignal(15, { received_at: at(10) })).kind).toBe('late');
    expect(feed.receive(makeSignal(31, { received_at: at(19) })).kind).toBe('added');
    expect(ids()).toEqual(['31', '30', '15', '10', '5']);
  });

  it('drops an old story older than a full list', () => {
    const { feed, clock } = setup();
    for (let i = 1; i <= FEED_CAP; i += 1) {
      feed.receive(makeSignal(i, { received_at: new Date(T0 + i * 1000).toISOString() }));
      clock.advance(1000);
    }
    const before = feed.signals.value;
    expect(feed.receive(makeSignal(0, { received_at: new Date(T0 - 3_600_000).toISOString() })).kind).toBe(
      'ignored',
    );
    expect(feed.signals.value).toBe(before);
  });

  it('replaces a card in place when its analysis completes, keeping its arrival time', () => {
    const { feed, clock, ids } = setup();
    const first = makeSignal(1);
    feed.receive(first);
    feed.receive(makeSignal(2));
    feed.receive(makeSignal(3));
    clock.advance(60_000);
    const change = feed.receive(completed(first, 'positive', 85, ['BTC'], { BTC: 100_000 }));
    expect(change).toMatchObject({ kind: 'replaced', completedNow: true });
    expect(ids()).toEqual(['3', '2', '1']);
    const card = feed.signals.value[2];
    expect(card?.analysis.status).toBe('completed');
    expect(card?.client_received_at).toBe(T0);
    expect(card?.initial_prices).toEqual({ BTC: 100_000 });
  });

  it('a second completed update (another source reported it) is a replacement, not a new completion', () => {
    const { feed } = setup();
    const done = completed(makeSignal(1), 'negative', 70, ['ETH']);
    expect(feed.receive(done).kind).toBe('added');
    const again = feed.receive({
      ...done,
      also_reported_by: [{ source_name: 'OKX', username: null, url: null, received_at: done.received_at }],
    });
    expect(again).toMatchObject({ kind: 'replaced', completedNow: false });
    expect(feed.signals.value[0]?.also_reported_by).toHaveLength(1);
  });

  it('never lets a late analyzing copy undo a completed analysis', () => {
    const { feed } = setup();
    const s = makeSignal(1);
    feed.receive(completed(s, 'positive', 90, ['SOL']));
    expect(feed.receive(s)).toEqual({ kind: 'ignored' });
    expect(feed.signals.value[0]?.analysis.status).toBe('completed');
  });

  it('keeps the newest 50 only', () => {
    const { feed, ids } = setup();
    for (let i = 1; i <= FEED_CAP + 7; i += 1) feed.receive(makeSignal(i));
    expect(ids()).toHaveLength(50);
    expect(ids()[0]).toBe('57');
    expect(ids().at(-1)).toBe('8');
  });

  it('saves the latest 50 under cryptoNewsSignals once a burst settles, and loads them in another tab', () => {
    const { feed, clock, saved, storage } = setup();
    for (let i = 1; i <= 60; i += 1) feed.receive(makeSignal(i));
    expect(saved()).toBeNull();
    clock.advance(SAVE_DELAY_MS);
    expect(saved()?.map((s) => s.id)).toHaveLength(50);
    expect(saved()?.[0]?.id).toBe('60');

    const next = createFeedStore({ storage, clock });
    expect(next.fresh).toBe(false);
    expect(next.signals.value.map((s) => s.id)).toEqual(feed.signals.value.map((s) => s.id));
    expect(next.signals.value[0]?.client_received_at).toBe(feed.signals.value[0]?.client_received_at);
  });

  it('writes at once on dispose, and leaves no timer behind', () => {
    const { feed, clock, saved } = setup();
    feed.receive(makeSignal(1));
    expect(clock.pendingTimers()).toBe(1);
    feed.dispose();
    expect(saved()?.map((s) => s.id)).toEqual(['1']);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('drops unreadable saved entries and reads a broken list as empty', () => {
    const good = { ...makeSignal(5), client_received_at: 42 };
    const { feed } = setup({ [FEED_KEYS.signals]: JSON.stringify([{ id: 'x' }, good]) });
    expect(feed.signals.value.map((s) => s.id)).toEqual(['5']);
    expect(feed.fresh).toBe(false);
    expect(setup({ [FEED_KEYS.signals]: '{oops' }).feed.signals.value).toEqual([]);
    expect(setup().feed.fresh).toBe(true);
  });

  it('seeds from history under what the stream already brought, newest first', () => {
    const { feed, ids } = setup();
    feed.receive(makeSignal(9)); // arrived on the stream (stamped now, the newest)
    feed.seed([makeSignal(8), makeSignal(7), makeSignal(9)]);
    expect(ids()).toEqual(['9', '8', '7']);
    expect(feed.signals.value[1]?.client_received_at).toBe(Date.parse(makeSignal(8).received_at));
  });

  it("keeps the server's prices at arrival as sent: an update fills a missing one, nothing else does", () => {
    const { feed } = setup();
    const done = completed(makeSignal(1), 'positive', 50, ['BTC', 'ETH'], { BTC: 100 });
    feed.receive(done);
    expect(feed.signals.value[0]?.initial_prices).toEqual({ BTC: 100 });
    expect(feed.receive({ ...done, initial_prices: { BTC: 100, ETH: 3_000 } })).toMatchObject({
      kind: 'replaced',
      completedNow: false,
    });
    expect(feed.signals.value[0]?.initial_prices).toEqual({ BTC: 100, ETH: 3_000 });
  });

  it('a saved card that took a price from elsewhere takes the server copy when its analysis completes', () => {
    const saved = { ...makeSignal(1), initial_prices: { ETH: 1 }, client_received_at: 42 };
    const { feed } = setup({ [FEED_KEYS.signals]: JSON.stringify([saved]) });
    feed.seed([completed(makeSignal(1), 'negative', 70, ['BTC', 'ETH'], { BTC: 100 })]);
    expect(feed.signals.value[0]?.initial_prices).toEqual({ BTC: 100 });
    expect(feed.signals.value[0]?.client_received_at).toBe(42);
    feed.receive(completed(makeSignal(1), 'negative', 70, ['BTC', 'ETH'], { BTC: 100 }));
    expect(feed.signals.value[0]?.initial_prices).toEqual({ BTC: 100 });
  });

  it('highlights a listed card, and forgets it once the card leaves the list', () => {
    const { feed } = setup();
    feed.receive(makeSignal(1));
    feed.highlight('1');
    feed.highlight('missing');
    expect([...feed.highlighted.value]).toEqual(['1']);
    for (let i = 2; i <= 51; i += 1) feed.receive(makeSignal(i));
    expect(feed.highlighted.value.size).toBe(0);
  });
});
