import { signal, type ReadonlySignal } from '@preact/signals-core';
import { findTicker } from '../../contracts/symbols';
import { WatchlistItem, WatchlistItems } from '../../contracts/watchlist';
import type { ApiClient } from '../api/client';
import { errorMessage, statusOf } from '../api/errors';
import type { Clock } from '../clock';

/** docs/product.md §8: the watchlist failure, shown 5 s. */
export const WATCHLIST_TEXT = {
  failed: 'Failed to update watchlist.',
  noticeMs: 5_000,
  unknown: (ticker: string) => `Unknown symbol: ${ticker}. Type a ticker such as BTC or ETH.`,
} as const;

export interface WatchlistStore {
  /** The watched tickers (upper case), in the order added. */
  readonly tickers: ReadonlySignal<readonly string[]>;
  readonly watched: ReadonlySignal<ReadonlySet<string>>;
  set(tickers: readonly string[]): void;
  clear(): void;
}

export function createWatchlistStore(): WatchlistStore {
  const tickers = signal<readonly string[]>([], { name: 'watchlist.tickers' });
  const watched = signal<ReadonlySet<string>>(new Set(), { name: 'watchlist.watched' });
  const set = (next: readonly string[]): void => {
    const unique = [...new Set(next)];
    tickers.value = unique;
    watched.value = new Set(unique);
  };
  return { tickers, watched, set, clear: () => set([]) };
}

export type WatchOutcome = { ok: true; tickers: readonly string[] } | { ok: false; message: string };

/** `GET /api/watchlist/` into the store. */
export async function loadWatchlist(main: ApiClient, store: WatchlistStore): Promise<WatchOutcome> {
  try {
    store.set((await main.call(WatchlistItems, '/watchlist/')).map((i) => i.ticker));
    return { ok: true, tickers: store.tickers.peek() };
  } catch (error) {
    return { ok: false, message: errorMessage(error, WATCHLIST_TEXT.failed) };
  }
}

/** Adds a ticker on the server, then in the store (idempotent). */
export async function watchTicker(
  main: ApiClient,
  store: WatchlistStore,
  raw: string,
): Promise<WatchOutcome> {
  const ticker = raw.trim().toUpperCase();
  if (findTicker(ticker) === undefined) return { ok: false, message: WATCHLIST_TEXT.unknown(ticker) };
  try {
    const item = await main.call(WatchlistItem, '/watchlist/', { method: 'POST', body: { ticker } });
    store.set([...store.tickers.peek(), item.ticker]);
    return { ok: true, tickers: store.tickers.peek() };
  } catch (error) {
    return { ok: false, message: errorMessage(error, WATCHLIST_TEXT.failed) };
  }
}

/** Removes a ticker on the server, then from the store; one that was not there counts as removed. */
export async function unwatchTicker(
  main: ApiClient,
  store: WatchlistStore,
  raw: string,
): Promise<WatchOutcome> {
  const ticker = raw.trim().toUpperCase();
  try {
    await main.send(`/watchlist/${encodeURIComponent(ticker)}`, { method: 'DELETE' });
  } catch (error) {
    if (statusOf(error) !== 404) return { ok: false, message: errorMessage(error, WATCHLIST_TEXT.failed) };
  }
  store.set(store.tickers.peek().filter((t) => t !== ticker));
  return { ok: true, tickers: store.tickers.peek() };
}

/** The cards' +/✓ toggles: one call per ticker at a time, and "Failed to update watchlist." for 5 s. */
export interface WatchlistToggles {
  readonly notice: ReadonlySignal<string | null>;
  readonly pending: ReadonlySignal<ReadonlySet<string>>;
  toggle(ticker: string): Promise<void>;
  dispose(): void;
}

export function createWatchlistToggles(deps: {
  main: ApiClient;
  store: WatchlistStore;
  clock: Clock;
}): WatchlistToggles {
  const notice = signal<string | null>(null, { name: 'watchlist.notice' });
  const pending = signal<ReadonlySet<string>>(new Set(), { name: 'watchlist.pending' });
  let cancelNotice = (): void => undefined;
  const show = (text: string): void => {
    cancelNotice();
    notice.value = text;
    cancelNotice = deps.clock.setTimer(() => (notice.value = null), WATCHLIST_TEXT.noticeMs);
  };
  return {
    notice,
    pending,
    async toggle(ticker) {
      if (pending.peek().has(ticker)) return;
      pending.value = new Set([...pending.peek(), ticker]);
      try {
        const on = deps.store.watched.peek().has(ticker);
        const done = on
          ? await unwatchTicker(deps.main, deps.store, ticker)
          : await watchTicker(deps.main, deps.store, ticker);
        if (!done.ok) show(WATCHLIST_TEXT.failed);
      } finally {
        pending.value = new Set([...pending.peek()].filter((t) => t !== ticker));
      }
    },
    dispose() {
      cancelNotice();
    },
  };
}
