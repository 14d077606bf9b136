import { findTicker } from '../../../src/contracts/symbols';
import { WATCHLIST_DETAILS, type WatchlistItem } from '../../../src/contracts/watchlist';
import { appError } from '../../plugins/errors';
import type { WatchlistRepo } from './watchlist.repo';

/** The watchlist rules: only supported tickers, upper case, each at most once per user. */
export class WatchlistService {
  constructor(private readonly repo: WatchlistRepo) {}

  async list(userId: string): Promise<WatchlistItem[]> {
    return (await this.repo.list(userId)).map((ticker) => ({ ticker }));
  }

  /** Adds a ticker (idempotent); `created` is false when it was already there. 400 for an unknown one. */
  async add(userId: string, raw: string): Promise<{ item: WatchlistItem; created: boolean }> {
    const ticker = this.supported(raw);
    const created = await this.repo.add(userId, ticker);
    return { item: { ticker }, created };
  }

  /** Removes a ticker; 404 when it was not on the list. */
  async remove(userId: string, raw: string): Promise<void> {
    const ticker = raw.trim().toUpperCase();
    if (!(await this.repo.remove(userId, ticker))) {
      throw appError('NOT_FOUND', WATCHLIST_DETAILS.notWatched(ticker));
    }
  }

  private supported(raw: string): string {
    const ticker = raw.trim().toUpperCase();
    const known = findTicker(ticker);
    if (known === undefined) throw appError('BAD_REQUEST', WATCHLIST_DETAILS.unknownTicker(ticker));
    return known.ticker;
  }
}
