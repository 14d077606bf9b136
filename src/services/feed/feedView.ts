import { computed, signal, type ReadonlySignal } from '@preact/signals-core';
import type { Disposer } from '../clock';
import type { FeedStore } from './feedStore';
import { impactOf, sentimentOf, type FeedSignal } from './types';

export type FeedTab = 'all' | 'watchlist';
export type SentimentFilter = 'positive' | 'negative' | null;

export interface FeedFilters {
  tab: FeedTab;
  sentiment: SentimentFilter;
  /** 0-100 in steps of 5 (docs/product.md §2). */
  minImpact: number;
}

export const MIN_IMPACT = { min: 0, max: 100, step: 5 } as const;

/**
 * Whether a card shows under the filters. A sentiment filter or a minimum impact above 0 shows only
 * completed signals that meet it; My Watchlist shows signals naming a watched asset.
 */
export function matchesFilters(s: FeedSignal, f: FeedFilters, watched: ReadonlySet<string>): boolean {
  if (f.tab === 'watchlist' && !s.assets.some((a) => watched.has(a))) return false;
  if (f.sentiment !== null && sentimentOf(s) !== f.sentiment) return false;
  if (f.minImpact > 0) {
    const impact = impactOf(s);
    if (impact === null || impact < f.minImpact) return false;
  }
  return true;
}

/** A minimum impact brought onto the slider's grid. */
export const snapImpact = (n: number): number =>
  Number.isFinite(n) ? Math.min(100, Math.max(0, Math.round(n / MIN_IMPACT.step) * MIN_IMPACT.step)) : 0;

export interface FeedViewDeps {
  feed: FeedStore;
  watched: ReadonlySignal<ReadonlySet<string>>;
  loggedIn: ReadonlySignal<boolean>;
  /** The keyword filter's test (src/services/feed/feedFilter.ts); none lets every signal through. */
  keywords?: ReadonlySignal<(s: FeedSignal) => boolean>;
}

export interface FeedView {
  readonly filters: ReadonlySignal<FeedFilters>;
  /** The tab in effect: My Watchlist is disabled (and reads as All News) when logged out. */
  readonly tab: ReadonlySignal<FeedTab>;
  /**
   * The cards on screen, newest first; `open 2` and `2 long 500` count in this list from 1. While the
   * feed is held (read further down, or focused), cards that arrive wait off screen: see {@link waiting}.
   */
  readonly visible: ReadonlySignal<readonly FeedSignal[]>;
  /** How many cards match the filters but wait off screen while the feed is held: the "N new ↑" pill. */
  readonly waiting: ReadonlySignal<number>;
  /** How many of the feed's signals the keyword filter hides, whatever the other filters show. */
  readonly hiddenByWords: ReadonlySignal<number>;
  /**
   * Holds the cards on screen where they are (true: the user scrolled down or focused the feed), or lets
   * new cards in at the top again (false: back at the top, focus elsewhere).
   */
  hold(on: boolean): void;
  /** The pill: the waiting cards come in at the top (the pane scrolls there); a hold stays. */
  showNew(): void;
  /** The card the j/k focus ring is on. */
  readonly focusedId: ReadonlySignal<string | null>;
  chooseTab(tab: FeedTab): void;
  /** Turns a sentiment filter on, or off when it is the one on. */
  toggleSentiment(sentiment: 'positive' | 'negative'): void;
  setSentiment(sentiment: SentimentFilter): void;
  setMinImpact(n: number): void;
  /** Moves the focus ring by `delta` cards (j = +1, k = -1), starting at the top. */
  moveFocus(delta: number): void;
  focus(id: string | null): void;
  /** The n-th card on screen (from 1), or undefined. */
  nth(n: number): FeedSignal | undefined;
  /**
   * Remembers the cards on screen as they are now: the terminal calls it when a line is started, so
   * that `5 long 100` can tell whether card 5 is still the card it was when the person began typing.
   */
  markLineStart(): void;
  /**
   * The n-th card on screen when the line was started: `null` when no line start was recorded (the
   * CLI, a button), undefined when there was no such card then.
   */
  nthAtLineStart(n: number): FeedSignal | undefined | null;
  /** Asks the app to open a source link in a new tab. */
  openUrl(url: string): void;
  onOpenUrl(listener: (url: string) => void): Disposer;
}

export function createFeedView(deps: FeedViewDeps): FeedView {
  const filters = signal<FeedFilters>(
    { tab: 'all', sentiment: null, minImpact: 0 },
    { name: 'feed.filters' },
  );
  const focusedId = signal<string | null>(null, { name: 'feed.focusedId' });
  const tab = computed(() => (deps.loggedIn.value ? filters.value.tab : 'all'), { name: 'feed.tab' });
  const worded = computed(
    () => {
      const passes = deps.keywords?.value;
      const all = deps.feed.signals.value;
      return passes === undefined ? all : all.filter(passes);
    },
    { name: 'feed.worded' },
  );
  const hiddenByWords = computed(() => deps.feed.signals.value.length - worded.value.length, {
    name: 'feed.hiddenByWords',
  });
  const matching = computed(
    () => {
      const f = { ...filters.value, tab: tab.value };
      const watched = deps.watched.value;
      return worded.value.filter((s) => matchesFilters(s, f, watched));
    },
    { name: 'feed.matching' },
  );
  /** While held: the cards that were on screen (or let in since); null lets every card in. */
  const pinned = signal<ReadonlySet<string> | null>(null, { name: 'feed.pinned' });
  const visible = computed(
    () => {
      const keep = pinned.value;
      // Held over an empty list nothing can shift: the first cards come in.
      return keep === null || keep.size === 0 ? matching.value : matching.value.filter((s) => keep.has(s.id));
    },
    { name: 'feed.visible' },
  );
  const waiting = computed(() => matching.value.length - visible.value.length, { name: 'feed.waiting' });
  const pinNow = (): void => {
    pinned.value = new Set(matching.peek().map((s) => s.id));
  };
  let atLineStart: readonly FeedSignal[] | null = null;
  const openListeners = new Set<(url: string) => void>();
  const patch = (p: Partial<FeedFilters>): void => {
    filters.value = { ...filters.peek(), ...p };
    // The user's own change of view: what it shows is on screen at once, held or not.
    if (pinned.peek() !== null) pinNow();
  };
  return {
    filters,
    tab,
    visible,
    waiting,
    hiddenByWords,
    hold(on) {
      if (!on) pinned.value = null;
      else if (pinned.peek() === null) pinNow();
    },
    showNew() {
      if (pinned.peek() !== null) pinNow();
    },
    focusedId,
    chooseTab(next) {
      if (next === 'watchlist' && !deps.loggedIn.peek()) return;
      patch({ tab: next });
    },
    toggleSentiment(s) {
      patch({ sentiment: filters.peek().sentiment === s ? null : s });
    },
    setSentiment(s) {
      patch({ sentiment: s });
    },
    setMinImpact(n) {
      patch({ minImpact: snapImpact(n) });
    },
    moveFocus(delta) {
      const list = visible.peek();
      if (list.length === 0) return;
      const at = list.findIndex((s) => s.id === focusedId.peek());
      const next = at === -1 ? (delta > 0 ? 0 : list.length - 1) : at + delta;
      focusedId.value = list[Math.min(list.length - 1, Math.max(0, next))]?.id ?? null;
    },
    focus(id) {
      focusedId.value = id;
    },
    nth: (n) => (Number.isInteger(n) && n >= 1 ? visible.peek()[n - 1] : undefined),
    markLineStart() {
      atLineStart = visible.peek();
    },
    nthAtLineStart(n) {
      if (atLineStart === null) return null;
      return Number.isInteger(n) && n >= 1 ? atLineStart[n - 1] : undefined;
    },
    openUrl(url) {
      for (const listener of [...openListeners]) listener(url);
    },
    onOpenUrl(listener) {
      openListeners.add(listener);
      return () => openListeners.delete(listener);
    },
  };
}
