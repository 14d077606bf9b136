import { eq } from 'drizzle-orm';
import type { FeedFilter } from '../../../src/contracts/keywords';
import type { Db } from '../../db/client';
import { feedFilters } from '../../db/schema';

/** SQL for the feed_filters table; nothing else. */
export class FeedFiltersRepo {
  constructor(private readonly db: Db) {}

  async get(userId: string): Promise<FeedFilter | null> {
    const [row] = await this.db
      .select({ include: feedFilters.include, exclude: feedFilters.exclude })
      .from(feedFilters)
      .where(eq(feedFilters.userId, userId))
      .limit(1);
    return row ?? null;
  }

  async put(userId: string, filter: FeedFilter): Promise<void> {
    const values = { include: filter.include, exclude: filter.exclude, updatedAt: new Date() };
    await this.db
      .insert(feedFilters)
      .values({ userId, ...values })
      .onConflictDoUpdate({ target: feedFilters.userId, set: values });
  }

  async remove(userId: string): Promise<void> {
    await this.db.delete(feedFilters).where(eq(feedFilters.userId, userId));
  }
}
