import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { watchlistItems } from '../../db/schema/watchlist';

/** SQL for the watchlist table; nothing else. */
export class WatchlistRepo {
  constructor(private readonly db: Db) {}

  /** The user's tickers in the order they were added. */
  async list(userId: string): Promise<string[]> {
    const rows = await this.db
      .select({ ticker: watchlistItems.ticker })
      .from(watchlistItems)
      .where(eq(watchlistItems.userId, userId))
      .orderBy(asc(watchlistItems.createdAt), asc(watchlistItems.ticker));
    return rows.map((r) => r.ticker);
  }

  /** True when the row was new; a ticker already there is left alone. */
  async add(userId: string, ticker: string): Promise<boolean> {
    const rows = await this.db
      .insert(watchlistItems)
      .values({ userId, ticker })
      .onConflictDoNothing()
      .returning({ ticker: watchlistItems.ticker });
    return rows.length > 0;
  }

  /** True when a row was removed. */
  async remove(userId: string, ticker: string): Promise<boolean> {
    const rows = await this.db
      .delete(watchlistItems)
      .where(and(eq(watchlistItems.userId, userId), eq(watchlistItems.ticker, ticker)))
      .returning({ ticker: watchlistItems.ticker });
    return rows.length > 0;
  }
}
