import { and, eq } from 'drizzle-orm';
import { Batcher, insertRows, rowsOf, updateFromValues } from '../../db/batch';
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
 * SQL for Idempotency-Key records, one state machine per key: claimed → sent → filled | failed | exists
 * (the venue says the order is there; it is only looked up from then on). Every
 * move is a conditional update, so of two requests racing on one key only one sends the order.
 */
export class IdempotencyRepo {
  /** First uses of keys by many users at once (one headline's rule orders) go in one insert. */
  private readonly firstUses = new Batcher<typeof orderRequests.$inferInsert, boolean>(async (rows) => {
    const inserted = rowsOf(
      orderRequests,
      await this.db.execute(
        insertRows(orderRequests, rows, {
          onConflictDoNothing: [orderRequests.userId, orderRequests.idempotencyKey],
          returning: [orderRequests.userId, orderRequests.idempotencyKey, orderRequests.requestHash],
        }),
      ),
    );
    // The same key twice in one batch: one row went in. It is the first use of the call whose request
    // it holds (the first such call, when both sent the same request).
    const stored = new Map(inserted.map((r) => [`${r.userId} ${r.idempotencyKey}`, r.requestHash]));
    return rows.map((r) => {
      const id = `${r.userId} ${r.idempotencyKey}`;
      if (stored.get(id) !== r.requestHash) return false;
      stored.delete(id);
      return true;
    });
  });
  private readonly fills = new Batcher<{ userId: string; key: string; orderId: string }, void>(
    async (items) => {
      const updatedAt = new Date();
      if (items.length === 1 || new Set(items.map((i) => `${i.userId} ${i.key}`)).size < items.length) {
        for (const i of items) {
          await this.db
            .update(orderRequests)
            .set({ state: 'filled', orderId: i.orderId, error: null, updatedAt })
            .where(and(eq(orderRequests.userId, i.userId), eq(orderRequests.idempotencyKey, i.key)));
        }
      } else {
        await this.db.execute(
          updateFromValues(
            orderRequests,
            [orderRequests.userId, orderRequests.idempotencyKey],
            ['state', 'orderId', 'error', 'updatedAt'],
            items.map((i) => ({
              key: [i.userId, i.key],
              set: { state: 'filled', orderId: i.orderId, error: null, updatedAt },
            })),
          ),
        );
      }
      return items.map(() => undefined);
    },
  );

  constructor(private readonly db: Db) {}

  /**
   * Records the key's first use, in `state` (`sent` when the caller sends at once: the first use then
   * holds the right to send in the same statement; `failed`, with `error`, when the venue refused an
   * order it booked nothing of). Returns `{ fresh: true }` on first use, otherwise the earlier record.
   */
  async claim(
    userId: string,
    key: string,
    record: StoredRequest,
    state: 'claimed' | 'sent' | 'failed' = 'claimed',
    error?: string,
  ): Promise<{ fresh: true } | ({ fresh: false } & HeldRequest)> {
    const fresh = await this.firstUses.add(
      // Written in milliseconds like every later state change: a retry takes over a `sent` key by
      // comparing this time, and the database's own now() (microseconds) would never compare equal.
      {
        userId,
        idempotencyKey: key,
        ...record,
        state,
        ...(error === undefined ? {} : { error }),
        updatedAt: new Date(),
      },
    );
    if (fresh) return { fresh: true };
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
    await this.fills.add({ userId, key, orderId });
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

  /**
   * The venue refused the send as a duplicate client id (-4116) and a look-up has not shown the order
   * yet: from `sent` only (a retry that found it meanwhile may have recorded it filled).
   */
  async markExists(userId: string, key: string): Promise<void> {
    await this.db
      .update(orderRequests)
      .set({ state: 'exists', updatedAt: new Date() })
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
