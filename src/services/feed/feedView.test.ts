import { signal } from '@preact/signals-core';
import { describe, expect, it } from 'vitest';
import { memoryStorage } from '../storage';
import { createFakeClock } from '../testing/fakeClock';
import { createFeedStore } from './feedStore';
import { createFeedView } from './feedView';
import { completed, makeSignal } from './testing/signals';

function setup() {
  const feed = createFeedStore({ storage: memoryStorage(), clock: createFakeClock() });
  const watched = signal<ReadonlySet<string>>(new Set());
  const loggedIn = signal(false);
  const view = createFeedView({ feed, watched, loggedIn });
  // Oldest first, so the list reads 5 4 3 2 1.
  feed.receive(completed(makeSignal(1), 'positive', 90, ['BTC']));
  feed.receive(completed(makeSignal(2), 'negative', 40, ['ETH']));
  feed.receive(completed(makeSignal(3), 'neutral', 75));
  feed.receive(completed(makeSignal(4), 'negative', 85, ['SOL', 'BTC']));
  feed.receive(makeSignal(5));
  const ids = () => view.visible.value.map((s) => s.id);
  return { feed, watched, loggedIn, view, ids };
}

describe('feed tabs, filters and focus', () => {
  it('shows everything, newest first, by default', () => {
    expect(setup().ids()).toEqual(['5', '4', '3', '2', '1']);
  });

  it('Positive and Negative filter by sentiment and toggle off again', () => {
    const { view, ids } = setup();
    view.toggleSentiment('negative');
    expect(ids()).toEqual(['4', '2']);
    view.toggleSentiment('positive');
    expect(ids()).toEqual(['1']);
    view.toggleSentiment('positive');
    expect(ids()).toEqual(['5', '4', '3', '2', '1']);
  });

  it('Min Impact keeps completed signals at or above it, on a grid of 5', () => {
    const { view, ids } = setup();
    view.setMinImpact(75);
    expect(ids()).toEqual(['4', '3', '1']);
    view.setMinImpact(87);
    expect(view.filters.value.minImpact).toBe(85);
    expect(ids()).toEqual(['4', '1']);
    view.setMinImpact(500);
    expect(view.filters.value.minImpact).toBe(100);
    view.setMinImpact(0);
    expect(ids()).toHaveLength(5);
  });

  it('My Watchlist is disabled when logged out, and shows watched assets when logged in', () => {
    const { view, ids, loggedIn, watched } = setup();
    view.chooseTab('watchlist');
    expect(view.tab.value).toBe('all');
    loggedIn.value = true;
    view.chooseTab('watchlist');
    expect(ids()).toEqual([]);
    watched.value = new Set(['BTC']);
    expect(ids()).toEqual(['4', '1']);
    loggedIn.value = false;
    expect(view.tab.value).toBe('all');
    expect(ids()).toHaveLength(5);
  });

  it('moves the focus ring with j/k within the visible cards and counts them from 1', () => {
    const { view } = setup();
    view.moveFocus(1);
    expect(view.focusedId.value).toBe('5');
    view.moveFocus(1);
    view.moveFocus(1);
    expect(view.focusedId.value).toBe('3');
    view.moveFocus(-5);
    expect(view.focusedId.value).toBe('5');
    view.focus(null);
    view.moveFocus(-1);
    expect(view.focusedId.value).toBe('1');
    expect(view.nth(2)?.id).toBe('4');
    expect(view.nth(0)).toBeUndefined();
    expect(view.nth(6)).toBeUndefined();
  });

  it('hands source links to whoever opens them, until they stop listening', () => {
    const { view } = setup();
    const opened: string[] = [];
    const stop = view.onOpenUrl((url) => opened.push(url));
    view.openUrl('https://a.example/');
    stop();
    view.openUrl('https://b.example/');
    expect(opened).toEqual(['https://a.example/']);
  });

  it('holds the cards where they are while held: new ones wait, counted, until the pill lets them in', () => {
    const { feed, view, ids } = setup();
    view.hold(true);
    feed.receive(completed(makeSignal(6), 'positive', 60));
    feed.receive(makeSignal(7));
    expect(ids()).toEqual(['5', '4', '3', '2', '1']);
    expect(view.waiting.value).toBe(2);
    expect(view.nth(1)?.id).toBe('5');
    // A card on screen still updates in place.
    feed.receive(completed(makeSignal(5), 'positive', 70));
    expect(ids()).toEqual(['5', '4', '3', '2', '1']);
    view.showNew();
    expect(ids()).toEqual(['7', '6', '5', '4', '3', '2', '1']);
    expect(view.waiting.value).toBe(0);
    // Still held: the next one waits too, until the hold ends.
    feed.receive(makeSignal(8));
    expect(view.waiting.value).toBe(1);
    view.hold(false);
    expect(ids()[0]).toBe('8');
    expect(view.waiting.value).toBe(0);
  });

  it('shows at once what a filter the user changes while held matches', () => {
    const { view, ids } = setup();
    view.toggleSentiment('negative');
    view.hold(true);
    view.toggleSentiment('negative');
    expect(ids()).toEqual(['5', '4', '3', '2', '1']);
    expect(view.waiting.value).toBe(0);
  });
});
