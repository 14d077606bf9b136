import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { orderRequests } from '../../db/schema/trading';

export interface StoredRequest {
  requestHash: string;
  clientOrderId: string;
}

/** SQL for Idempotency-Key records; nothing else. */
export class IdempotencyRepo {
  constructor(private readonly db: Db) {}

  /**
   * Records the key's first use. Returns `{ fresh: true }` when this is the first use, otherwise the
   * record of the earlier one.
   */
  async claim(
    userId: string,
    key: string,
    record: StoredRequest,
  ): Promise<{ fresh: true } | ({ fresh: false } & StoredRequest)> {
    const inserted = await this.db
      .insert(orderRequests)
      .values({ userId, idempotencyKey: key, ...record })
      .onConflictDoNothing({ target: [orderRequests.userId, orderRequests.idempotencyKey] })
      .returning({ clientOrderId: orderRequests.clientOrderId });
    if (inserted.length > 0) return { fresh: true };
    const [row] = await this.db
      .select({ requestHash: orderRequests.requestHash, clientOrderId: orderRequests.clientOrderId })
      .from(orderRequests)
      .where(and(eq(orderRequests.userId, userId), eq(orderRequests.idempotencyKey, key)));
    if (!row) throw new Error('idempotency record vanished');
    return { fresh: false, ...row };
  }
}
