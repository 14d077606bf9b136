import { signal, type ReadonlySignal } from '@preact/signals-core';
import type { Signal } from '../../contracts/signals';
import type { Clock, Disposer } from '../clock';
import { writeJson, type StoragePort } from '../storage';
import { FEED_CAP, FEED_KEYS, FeedSignal } from './types';

/** What one incoming signal did to the list. */
export type FeedChange =
  | { kind: 'added'; signal: FeedSignal }
  /**
   * An older story this list did not hold, sent again because it changed (a retraction marked it, a
   * price at arrival came in): put in its place by age, never on top, and never news.
   */
  | { kind: 'late'; signal: FeedSignal }
  /** The same id again: the card was replaced in place; `completedNow` when it has just finished analysing. */
  | { kind: 'replaced'; signal: FeedSignal; completedNow: boolean }
  /** Older news than the whole (full) list, or a stale `analyzing` after `completed`: nothing changed. */
  | { kind: 'ignored' };

/**
 * A story the stream sends that reached the server this much before the newest card did is an update of
 * old news (a retraction marked it, a price at arrival came in), not news. Both times are the server's,
 * so a browser's clock that is off changes nothing.
 */
export const LATE_AFTER_MS = 60_000;

/**
 * `incoming` as a late card, or null when it is news: its time on this browser's clock is the server's
 * time moved by the newest card's offset between the two clocks.
 */
function lateCard(list: readonly FeedSignal[], incoming: Signal): FeedSignal | null {
  const head = list[0];
  if (head === undefined) return null;
  const receivedAt = Date.parse(incoming.received_at);
  const headAt = Date.parse(head.received_at);
  if (!Number.isFinite(receivedAt) || !Number.isFinite(headAt) || headAt - receivedAt <= LATE_AFTER_MS)
    return null;
  return { ...incoming, client_received_at: receivedAt + (head.client_received_at - headAt) };
}

export interface FeedStore {
  /** Newest first, at most 50 (docs/product.md §4). */
  readonly signals: ReadonlySignal<readonly FeedSignal[]>;
  /** Cards an alert highlighted (docs/product.md §9), until the signal leaves the list. */
  readonly highlighted: ReadonlySignal<ReadonlySet<string>>;
  /** True when this browser had no saved list at start: the feed is seeded from history. */
  readonly fresh: boolean;
  /** The injected clock's time (ms): what "2m ago" is measured against outside the pane. */
  now(): number;
  /**
   * A signal from the stream: a new one goes on top, a known id is replaced in place, and an older story
   * the list does not hold goes in its place by age (or nowhere, when the full list is newer).
   */
  receive(incoming: Signal): FeedChange;
  /**
   * History from `GET /api/signals` (newest first), merged under what the stream already brought; a
   * saved card still analyzing takes its completed copy.
   */
  seed(history: readonly Signal[]): void;
  highlight(id: string): void;
  /** Writes the list now (it is otherwise written shortly after each change). */
  flush(): void;
  /** Stops the pending write, after writing it. */
  dispose: Disposer;
}

/** Reads the saved list; unreadable entries are dropped, never the whole list. */
function readSaved(storage: StoragePort): FeedSignal[] | null {
  const text = storage.get(FEED_KEYS.signals);
  if (text === null) return null;
  try {
    const raw: unknown = JSON.parse(text);
    if (!Array.isArray(raw)) return [];
    return raw.flatMap((item) => {
      const parsed = FeedSignal.safeParse(item);
      return parsed.success ? [parsed.data] : [];
    });
  } catch {
    return [];
  }
}

/** Milliseconds a change waits before the list is written, so a burst of updates writes once. */
export const SAVE_DELAY_MS = 500;

export function createFeedStore(deps: { storage: StoragePort; clock: Clock }): FeedStore {
  const { storage, clock } = deps;
  const saved = readSaved(storage);
  const signals = signal<readonly FeedSignal[]>((saved ?? []).slice(0, FEED_CAP), { name: 'feed.signals' });
  const highlighted = signal<ReadonlySet<string>>(new Set(), { name: 'feed.highlighted' });
  let cancelSave: (() => void) | null = null;

  const flush = (): void => {
    cancelSave?.();
    cancelSave = null;
    writeJson(storage, FEED_KEYS.signals, signals.peek());
  };
  const commit = (next: readonly FeedSignal[]): void => {
    const kept = next.slice(0, FEED_CAP);
    signals.value = kept;
    const ids = new Set(kept.map((s) => s.id));
    const marks = highlighted.peek();
    if ([...marks].some((id) => !ids.has(id)))
      highlighted.value = new Set([...marks].filter((id) => ids.has(id)));
    cancelSave ??= clock.setTimer(flush, SAVE_DELAY_MS);
  };

  return {
    signals,
    highlighted,
    fresh: saved === null,
    now: () => clock.now(),
    receive(incoming) {
      const list = signals.peek();
      const index = list.findIndex((s) => s.id === incoming.id);
      if (index === -1) {
        const late = lateCard(list, incoming);
        if (late !== null) {
          const at = list.findIndex((s) => s.client_received_at < late.client_received_at);
          if (at === -1 && list.length >= FEED_CAP) return { kind: 'ignored' };
          commit(at === -1 ? [...list, late] : [...list.slice(0, at), late, ...list.slice(at)]);
          return { kind: 'late', signal: late };
        }
        const added: FeedSignal = { ...incoming, client_received_at: clock.now() };
        commit([added, ...list]);
        return { kind: 'added', signal: added };
      }
      const known = list[index] as FeedSignal;
      // A late `analyzing` copy never undoes a finished analysis.
      if (known.analysis.status === 'completed' && incoming.analysis.status === 'analyzing') {
        return { kind: 'ignored' };
      }
      // The server's copy is whole, `initial_prices` included: a price it filled later arrives this way.
      const replaced: FeedSignal = { ...incoming, client_received_at: known.client_received_at };
      commit(list.map((s, i) => (i === index ? replaced : s)));
      return {
        kind: 'replaced',
        signal: replaced,
        completedNow: known.analysis.status === 'analyzing' && incoming.analysis.status === 'completed',
      };
    },
    seed(history) {
      const byId = new Map(history.map((s) => [s.id, s]));
      // A card saved while analyzing takes the finished copy (its analysis completed while no tab was open).
      const list = signals.peek().map((s): FeedSignal => {
        const done = byId.get(s.id);
        if (s.analysis.status !== 'analyzing' || done?.analysis.status !== 'completed') return s;
        return { ...done, client_received_at: s.client_received_at };
      });
      const known = new Set(list.map((s) => s.id));
      const extra = history
        .filter((s) => !known.has(s.id))
        .map((s): FeedSignal => ({ ...s, client_received_at: Date.parse(s.received_at) || clock.now() }));
      if (extra.length === 0 && list.every((s, i) => s === signals.peek()[i])) return;
      commit([...list, ...extra].sort((a, b) => b.client_received_at - a.client_received_at));
    },
    highlight(id) {
      if (highlighted.peek().has(id) || !signals.peek().some((s) => s.id === id)) return;
      highlighted.value = new Set([...highlighted.peek(), id]);
    },
    flush,
    dispose() {
      if (cancelSave !== null) flush();
    },
  };
}
