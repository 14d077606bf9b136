import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { checkoutSessions, paymentEvents, subscriptions } from '../../db/schema';

export type SubscriptionRow = typeof subscriptions.$inferSelect;
export type CheckoutRow = typeof checkoutSessions.$inferSelect;
type SubscriptionPatch = Partial<Omit<SubscriptionRow, 'userId' | 'updatedAt'>>;
type Gateway = CheckoutRow['gateway'];

/** SQL for the billing tables; nothing else. */
export class BillingRepo {
  constructor(private readonly db: Db) {}

  async subscriptionOf(userId: string): Promise<SubscriptionRow | undefined> {
    const [row] = await this.db.select().from(subscriptions).where(eq(subscriptions.userId, userId));
    return row;
  }

  async subscriptionByExternalId(externalId: string): Promise<SubscriptionRow | undefined> {
    const [row] = await this.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.externalId, externalId))
      .limit(1);
    return row;
  }

  async insertCheckout(row: typeof checkoutSessions.$inferInsert): Promise<CheckoutRow> {
    const [created] = await this.db.insert(checkoutSessions).values(row).returning();
    if (created === undefined) throw new Error('insert returned no row');
    return created;
  }

  async checkoutById(id: string): Promise<CheckoutRow | undefined> {
    const [row] = await this.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, id));
    return row;
  }

  async checkoutByExternalId(gateway: Gateway, externalId: string): Promise<CheckoutRow | undefined> {
    const [row] = await this.db
      .select()
      .from(checkoutSessions)
      .where(and(eq(checkoutSessions.gateway, gateway), eq(checkoutSessions.externalId, externalId)));
    return row;
  }

  /**
   * Applies one provider event in a transaction: the event id is recorded first, and when it was already
   * there (a replay, or a second server process) nothing else happens. Returns whether it was applied.
   */
  async applyEvent(
    event: { source: 'stripe' | 'btcpay'; eventId: string; type: string },
    apply: (tx: BillingRepo) => Promise<void>,
  ): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const inserted = await tx
        .insert(paymentEvents)
        .values(event)
        .onConflictDoNothing()
        .returning({ id: paymentEvents.eventId });
      if (inserted.length === 0) return false;
      await apply(new BillingRepo(tx));
      return true;
    });
  }

  async upsertSubscription(userId: string, patch: SubscriptionPatch): Promise<void> {
    const set = { ...patch, updatedAt: new Date() };
    await this.db
      .insert(subscriptions)
      .values({ userId, ...set })
      .onConflictDoUpdate({ target: subscriptions.userId, set });
  }

  async updateSubscriptionByExternalId(externalId: string, patch: SubscriptionPatch): Promise<void> {
    await this.db
      .update(subscriptions)
      .set({ ...patch, updatedAt: new Date() })
      .where(eq(subscriptions.externalId, externalId));
  }

  /**
   * Moves an open checkout to `status` (paid, cancelled, expired…) in one conditional UPDATE: of two
   * callers at once only one sees true. False when it was no longer open.
   */
  async claimCheckout(id: string, status: Exclude<CheckoutRow['status'], 'open'>): Promise<boolean> {
    const moved = await this.db
      .update(checkoutSessions)
      .set({ status })
      .where(and(eq(checkoutSessions.id, id), eq(checkoutSessions.status, 'open')))
      .returning({ id: checkoutSessions.id });
    return moved.length > 0;
  }
}
