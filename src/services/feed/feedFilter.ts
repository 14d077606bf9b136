import { computed, signal, type ReadonlySignal } from '@preact/signals-core';
import {
  compileKeywords,
  FeedFilter,
  isEmptyFilter,
  KeywordFilter,
  NO_KEYWORDS,
  signalPasses,
  splitTerms,
  type KeywordSubject,
} from '../../contracts/keywords';
import type { ApiClient } from '../api/client';
import { errorMessage } from '../api/errors';
import { readJson, writeJson, type StoragePort } from '../storage';

/** Where a visitor's filter is kept (a signed-in account's is on the server). */
export const FEED_FILTER_KEY = 'signal-console.feedFilter';

export const FEED_FILTER_TEXT = {
  failed: 'Failed to save the feed filter.',
  loadFailed: 'Failed to load your feed filter.',
} as const;

/**
 * The feed's keyword filter (src/contracts/keywords.ts): what the feed pane, the `feed` command and the
 * alerts leave out. A signed-in account's comes from the server; a visitor's from this browser.
 */
export interface FeedFilterStore {
  readonly filter: ReadonlySignal<FeedFilter>;
  readonly active: ReadonlySignal<boolean>;
  /** Whether a signal passes the filter (always, with none). */
  readonly passes: ReadonlySignal<(item: KeywordSubject) => boolean>;
  /** Shows a filter at once (a signed-in account's as the server answered it). */
  set(filter: FeedFilter): void;
  /** A visitor's own: shown and kept in this browser. */
  setLocal(filter: FeedFilter): void;
  /** Back to this browser's own (the account signed out). */
  useLocal(): void;
}

const isFilter = (v: unknown): v is FeedFilter => FeedFilter.safeParse(v).success;

export function createFeedFilterStore(storage: StoragePort): FeedFilterStore {
  const local = (): FeedFilter => {
    const parsed = KeywordFilter.safeParse(readJson(storage, FEED_FILTER_KEY, isFilter, NO_KEYWORDS));
    return parsed.success ? parsed.data : NO_KEYWORDS;
  };
  const filter = signal<FeedFilter>(local(), { name: 'feedFilter.filter' });
  const passes = computed(
    () => {
      const test = compileKeywords(filter.value);
      return (item: KeywordSubject) => signalPasses(test, item);
    },
    { name: 'feedFilter.passes' },
  );
  return {
    filter,
    active: computed(() => !isEmptyFilter(filter.value), { name: 'feedFilter.active' }),
    passes,
    set(next) {
      filter.value = next;
    },
    setLocal(next) {
      if (isEmptyFilter(next)) storage.remove(FEED_FILTER_KEY);
      else writeJson(storage, FEED_FILTER_KEY, next);
      filter.value = next;
    },
    useLocal() {
      filter.value = local();
    },
  };
}

export type FilterOutcome = { ok: true; filter: FeedFilter } | { ok: false; message: string };

/** The first thing wrong with a filter, in the server's words, or the filter as it will be saved. */
export function checkFilter(input: {
  include: readonly string[];
  exclude: readonly string[];
}): FilterOutcome {
  const parsed = KeywordFilter.safeParse(input);
  if (parsed.success) return { ok: true, filter: parsed.data };
  return { ok: false, message: parsed.error.issues[0]?.message ?? FEED_FILTER_TEXT.failed };
}

/** `GET /api/users/me/feed-filter` into the store. */
export async function loadFeedFilter(main: ApiClient, store: FeedFilterStore): Promise<FilterOutcome> {
  try {
    const filter = await main.call(FeedFilter, '/users/me/feed-filter');
    store.set(filter);
    return { ok: true, filter };
  } catch (error) {
    return { ok: false, message: errorMessage(error, FEED_FILTER_TEXT.loadFailed) };
  }
}

/**
 * Saves the filter: on the server for a signed-in account (then shown as it answered), in this browser
 * for a visitor. Checked first, so a mistake is said without a request.
 */
export async function saveFeedFilter(
  deps: { main: ApiClient; store: FeedFilterStore; loggedIn: boolean },
  input: { include: readonly string[]; exclude: readonly string[] },
): Promise<FilterOutcome> {
  const checked = checkFilter(input);
  if (!checked.ok) return checked;
  if (!deps.loggedIn) {
    deps.store.setLocal(checked.filter);
    return checked;
  }
  try {
    const saved = await deps.main.call(FeedFilter, '/users/me/feed-filter', {
      method: 'PUT',
      body: checked.filter,
    });
    deps.store.set(saved);
    return { ok: true, filter: saved };
  } catch (error) {
    return { ok: false, message: errorMessage(error, FEED_FILTER_TEXT.failed) };
  }
}

/** The pane's two fields as typed ("listing, hack"), saved as {@link saveFeedFilter} saves. */
export function saveFeedFilterText(
  deps: { main: ApiClient; store: FeedFilterStore; loggedIn: boolean },
  include: string,
  exclude: string,
): Promise<FilterOutcome> {
  return saveFeedFilter(deps, { include: splitTerms(include), exclude: splitTerms(exclude) });
}

/** "include listing or hack; exclude perpetual", or "none". */
export function describeFilter(f: FeedFilter): string {
  if (isEmptyFilter(f)) return 'none';
  const parts: string[] = [];
  if (f.include.length > 0) parts.push(`include ${f.include.map((w) => `"${w}"`).join(' or ')}`);
  if (f.exclude.length > 0) parts.push(`exclude ${f.exclude.map((w) => `"${w}"`).join(', ')}`);
  return parts.join('; ');
}
