import { eq } from 'drizzle-orm';
import type { Database } from '../../../server/db/client';
import { orderRequests, paperLedger, users } from '../../../server/db/schema';

export interface StoredFill {
  username: string;
  clientOrderId: string;
  orderId: string;
  createdAt: Date;
}

export interface StoredRequest {
  username: string;
  key: string;
  state: string;
  orderId: string | null;
}

/**
 * What the server stored about orders, read from its database after the run: every fill of the paper
 * ledger and every Idempotency-Key record, by username. What the API said is checked against it.
 */
export async function storedOrders(open: () => Promise<Database>) {
  const database = await open();
  try {
    const names = new Map(
      (await database.db.select({ id: users.id, username: users.username }).from(users)).map((u) => [
        u.id,
        u.username,
      ]),
    );
    const nameOf = (id: string) => names.get(id) ?? `unknown user ${id}`;
    const ledger = await database.db
      .select({ userId: paperLedger.userId, event: paperLedger.event, createdAt: paperLedger.createdAt })
      .from(paperLedger)
      .where(eq(paperLedger.type, 'fill'));
    const fills: StoredFill[] = [];
    for (const row of ledger) {
      if (row.event.type !== 'fill') continue;
      fills.push({
        username: nameOf(row.userId),
        clientOrderId: row.event.clientOrderId,
        orderId: row.event.orderId,
        createdAt: row.createdAt,
      });
    }
    const requests: StoredRequest[] = (
      await database.db
        .select({
          userId: orderRequests.userId,
          key: orderRequests.idempotencyKey,
          state: orderRequests.state,
          orderId: orderRequests.orderId,
        })
        .from(orderRequests)
    ).map((r) => ({ username: nameOf(r.userId), key: r.key, state: r.state, orderId: r.orderId }));
    return { fills, requests };
  } finally {
    await database.close();
  }
}
