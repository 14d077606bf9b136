import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { orderRequests, type OrderRequestState } from '../../db/schema/trading';

export interface StoredRequest {
  requestHash: string;
  clientOrderId: string;
  /** `paper` or the key id the order was sent with. */
  account: string;
  symbol: string | null;
}

export interface HeldRequest extends StoredRequest {
  state: OrderRequestState;
  orderId: string | null;
  error: string | null;
  updatedAt: Date;
}

/**
 * SQL for Idempotency-Key records, one state machine per key: claimed → sent → filled | failed. Every
 * move is a conditional update, so of two requests racing on one key only one sends the order.
 */
export class IdempotencyRepo {
  constructor(private readonly db: Db) {}

  /** Records the key's first use. Returns `{ fresh: true }` on first use, otherwise the earlier record. */
  async claim(
    userId: string,
    key: string,
    record: StoredRequest,
  ): Promise<{ fresh: true } | ({ fresh: false } & HeldRequest)> {
    const inserted = await this.db
      .insert(orderRequests)
      .values({ userId, idempotencyKey: key, ...record })
      .onConflictDoNothing({ target: [orderRequests.userId, orderRequests.idempotencyKey] })
      .returning({ clientOrderId: orderRequests.clientOrderId });
    if (inserted.length > 0) return { fresh: true };
    const row = await this.get(userId, key);
    if (!row) throw new Error('idempotency record vanished');
    return { fresh: false, ...row };
  }

  async get(userId: string, key: string): Promise<HeldRequest | undefined> {
    const [row] = await this.db
      .select({
        requestHash: orderRequests.requestHash,
        clientOrderId: orderRequests.clientOrderId,
        account: orderRequests.account,
        symbol: orderRequests.symbol,
        state: orderRequests.state,
        orderId: orderRequests.orderId,
        error: orderRequests.error,
        updatedAt: orderRequests.updatedAt,
      })
      .from(orderRequests)
      .where(and(eq(orderRequests.userId, userId), eq(orderRequests.idempotencyKey, key)));
    return row;
  }

  /**
   * Takes the right to send: from `claimed`, or from a `sent` record last touched at `seenAt` (a resend
   * after the earlier try was looked up and not found). False when another request took it first.
   */
  async markSent(userId: string, key: string, from: OrderRequestState, seenAt?: Date): Promise<boolean> {
    const conditions = [
      eq(orderRequests.userId, userId),
      eq(orderRequests.idempotencyKey, key),
      eq(orderRequests.state, from),
    ];
    if (seenAt !== undefined) conditions.push(eq(orderRequests.updatedAt, seenAt));
    const rows = await this.db
      .update(orderRequests)
      .set({ state: 'sent', updatedAt: new Date() })
      .where(and(...conditions))
      .returning({ key: orderRequests.idempotencyKey });
    return rows.length > 0;
  }

  async markFilled(userId: string, key: string, orderId: string): Promise<void> {
    await this.db
      .update(orderRequests)
      .set({ state: 'filled', orderId, error: null, updatedAt: new Date() })
      .where(and(eq(orderRequests.userId, userId), eq(orderRequests.idempotencyKey, key)));
  }

  /**
   * Forgets a key whose order the exchange refused before acting on it (rate-limited: nothing was
   * placed), so that a retry with the same key is a first try. Only from `sent`.
   */
  async release(userId: string, key: string): Promise<void> {
    await this.db
      .delete(orderRequests)
      .where(
        and(
          eq(orderRequests.userId, userId),
          eq(orderRequests.idempotencyKey, key),
          eq(orderRequests.state, 'sent'),
        ),
      );
  }

  async markFailed(userId: string, key: string, error: string): Promise<void> {
    await this.db
      .update(orderRequests)
      .set({ state: 'failed', error, updatedAt: new Date() })
      .where(and(eq(orderRequests.userId, userId), eq(orderRequests.idempotencyKey, key)));
  }
}
