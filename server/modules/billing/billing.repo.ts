import { and, eq, isNull, lte, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { billingAccounts, checkoutSessions, paymentEvents, subscriptions } from '../../db/schema';

export type SubscriptionRow = typeof subscriptions.$inferSelect;
export type CheckoutRow = typeof checkoutSessions.$inferSelect;
export type BillingAccountRow = typeof billingAccounts.$inferSelect;
/** How a subscription is paid: each way has its own row. */
export type SubscriptionProvider = SubscriptionRow['provider'];
type SubscriptionPatch = Partial<Omit<SubscriptionRow, 'userId' | 'provider' | 'updatedAt'>>;
type Gateway = CheckoutRow['gateway'];

/** SQL for the billing tables; nothing else. */
export class BillingRepo {
  constructor(private readonly db: Db) {}

  /** Every way the user's Premium is or was paid: at most one row per provider. */
  async subscriptionsOf(userId: string): Promise<SubscriptionRow[]> {
    return this.db.select().from(subscriptions).where(eq(subscriptions.userId, userId));
  }

  async subscriptionOf(userId: string, provider: SubscriptionProvider): Promise<SubscriptionRow | undefined> {
    const [row] = await this.db
      .select()
      .from(subscriptions)
      .where(and(eq(subscriptions.userId, userId), eq(subscriptions.provider, provider)));
    return row;
  }

  /** The row a provider's id names, among that provider's rows only. */
  async subscriptionByExternalId(
    provider: SubscriptionProvider,
    externalId: string,
  ): Promise<SubscriptionRow | undefined> {
    const [row] = await this.db
      .select()
      .from(subscriptions)
      .where(and(eq(subscriptions.provider, provider), eq(subscriptions.externalId, externalId)))
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

  /** The user's checkouts of one provider that can still be paid. */
  async openCheckouts(userId: string, provider: CheckoutRow['provider']): Promise<CheckoutRow[]> {
    return this.db
      .select()
      .from(checkoutSessions)
      .where(
        and(
          eq(checkoutSessions.userId, userId),
          eq(checkoutSessions.provider, provider),
          eq(checkoutSessions.status, 'open'),
        ),
      );
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

  async upsertSubscription(
    userId: string,
    provider: SubscriptionProvider,
    patch: SubscriptionPatch,
  ): Promise<void> {
    const set = { ...patch, updatedAt: new Date() };
    await this.db
      .insert(subscriptions)
      .values({ userId, provider, ...set })
      .onConflictDoUpdate({ target: [subscriptions.userId, subscriptions.provider], set });
  }

  /** Changes the row of `provider` that its id names; no other provider's row, whatever its id. */
  async updateSubscriptionByExternalId(
    provider: SubscriptionProvider,
    externalId: string,
    patch: SubscriptionPatch,
  ): Promise<void> {
    await this.db
      .update(subscriptions)
      .set({ ...patch, updatedAt: new Date() })
      .where(and(eq(subscriptions.provider, provider), eq(subscriptions.externalId, externalId)));
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

  async account(userId: string): Promise<BillingAccountRow | undefined> {
    const [row] = await this.db.select().from(billingAccounts).where(eq(billingAccounts.userId, userId));
    return row;
  }

  /**
   * Takes the account's billing record until `until` (a checkout or a plan change being made), in one
   * conditional UPDATE: of any number of callers at once, in any number of server processes, one gets the
   * record and the others undefined until it is given back or its time has passed.
   */
  async holdAccount(userId: string, now: Date, until: Date): Promise<BillingAccountRow | undefined> {
    await this.db.insert(billingAccounts).values({ userId }).onConflictDoNothing();
    const [held] = await this.db
      .update(billingAccounts)
      .set({ busyUntil: until, updatedAt: now })
      .where(
        and(
          eq(billingAccounts.userId, userId),
          or(isNull(billingAccounts.busyUntil), lte(billingAccounts.busyUntil, now)),
        ),
      )
      .returning();
    return held;
  }

  /** Gives the record back, unless its time passed and someone else holds it now. */
  async releaseAccount(userId: string, until: Date): Promise<void> {
    await this.db
      .update(billingAccounts)
      .set({ busyUntil: null })
      .where(and(eq(billingAccounts.userId, userId), eq(billingAccounts.busyUntil, until)));
  }

  /** The account's one free trial started at `at`; an earlier start is kept. */
  async markTrialUsed(userId: string, at: Date): Promise<void> {
    await this.db
      .insert(billingAccounts)
      .values({ userId, trialUsedAt: at, updatedAt: at })
      .onConflictDoUpdate({
        target: billingAccounts.userId,
        set: { trialUsedAt: sql`coalesce(${billingAccounts.trialUsedAt}, excluded.trial_used_at)` },
      });
  }

  /** The account's Stripe customer, reused by its later checkouts; a customer already known is kept. */
  async rememberCustomer(userId: string, customerId: string): Promise<void> {
    await this.db
      .insert(billingAccounts)
      .values({ userId, stripeCustomerId: customerId })
      .onConflictDoUpdate({
        target: billingAccounts.userId,
        set: {
          stripeCustomerId: sql`coalesce(${billingAccounts.stripeCustomerId}, excluded.stripe_customer_id)`,
        },
      });
  }
}
