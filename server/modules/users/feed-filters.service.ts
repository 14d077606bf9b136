import {
  compileKeywords,
  isEmptyFilter,
  keywordTexts,
  NO_KEYWORDS,
  type FeedFilter,
  type KeywordFilter,
  type KeywordSubject,
} from '../../../src/contracts/keywords';
import type { Bus, Disposer } from '../../plugins/bus/bus';
import type { FeedFiltersRepo } from './feed-filters.repo';

/** A signal test of one account's feed filter, kept current while held (a live stream's). */
export interface HeldFilter {
  passes(item: KeywordSubject): boolean;
  release(): void;
}

interface Entry {
  filter: FeedFilter;
  test: (texts: readonly string[]) => boolean;
}

/** Accounts whose filter is held in memory beyond those a stream holds. */
const CACHE_CAP = 10_000;

const entryOf = (filter: FeedFilter): Entry => ({ filter, test: compileKeywords(filter) });

/**
 * Each account's feed filter (src/contracts/keywords.ts): read and saved here, held in memory for the
 * feed's list and stream, and dropped in every process when its owner changes it (`users.feedFilter`).
 */
export class FeedFiltersService {
  private readonly cache = new Map<string, Entry>();
  private readonly held = new Map<string, Set<{ entry: Entry }>>();
  private readonly unsubscribe: Disposer;

  constructor(
    private readonly repo: FeedFiltersRepo,
    private readonly bus: Bus,
    private readonly onError: (err: unknown) => void,
  ) {
    this.unsubscribe = bus.subscribe('users.feedFilter', ({ userId }) => {
      this.cache.delete(userId);
      if (this.held.has(userId)) void this.read(userId).catch(onError);
    });
  }

  async get(userId: string): Promise<FeedFilter> {
    return (await this.read(userId)).filter;
  }

  /** Saves the filter (two empty lists clear it) and tells every process. */
  async save(userId: string, filter: KeywordFilter): Promise<FeedFilter> {
    if (isEmptyFilter(filter)) await this.repo.remove(userId);
    else await this.repo.put(userId, filter);
    this.remember(userId, entryOf(filter));
    await this.bus.publish('users.feedFilter', { userId }).catch(this.onError);
    return filter;
  }

  /** The account's filter as a test of signals, for one list: read once. */
  async testFor(userId: string): Promise<(item: KeywordSubject) => boolean> {
    const { test } = await this.read(userId);
    return (item) => test(keywordTexts(item));
  }

  /** The account's filter as a test that follows its changes until released (a live stream). */
  async hold(userId: string): Promise<HeldFilter> {
    const slot = { entry: await this.read(userId) };
    let mine = this.held.get(userId);
    if (mine === undefined) this.held.set(userId, (mine = new Set()));
    mine.add(slot);
    return {
      passes: (item) => slot.entry.test(keywordTexts(item)),
      release: () => {
        mine.delete(slot);
        if (mine.size === 0 && this.held.get(userId) === mine) this.held.delete(userId);
      },
    };
  }

  close(): void {
    this.unsubscribe();
  }

  private async read(userId: string): Promise<Entry> {
    const cached = this.cache.get(userId);
    if (cached !== undefined) return cached;
    const entry = entryOf((await this.repo.get(userId)) ?? NO_KEYWORDS);
    this.remember(userId, entry);
    return entry;
  }

  private remember(userId: string, entry: Entry): void {
    this.cache.delete(userId);
    this.cache.set(userId, entry);
    if (this.cache.size > CACHE_CAP) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    for (const slot of this.held.get(userId) ?? []) slot.entry = entry;
  }
}
