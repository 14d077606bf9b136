import {
  boolean,
  index,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { users } from './users';

/**
 * Module billing: each account's billing record (its payment customer and its one free trial), a
 * subscription per way of paying (card, crypto, an admin's grant), the checkouts that lead to them, and
 * every provider event.
 */

export const PLAN_TYPES = ['monthly', 'yearly'] as const;
export const PAYMENT_PROVIDERS = ['card', 'crypto'] as const;
/** Who actually takes the money: the real services, or the built-in test checkout. */
export const GATEWAYS = ['stripe', 'btcpay', 'sandbox'] as const;
export const SUBSCRIPTION_STATUSES = ['inactive', 'active', 'past_due', 'canceled', 'expired'] as const;

/**
 * One row per user and per way of paying: a card subscription and a crypto period live side by side
 * (Premium while either is active), and each provider's events change that provider's row only.
 */
export const subscriptions = pgTable(
  'subscriptions',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    provider: text('provider', { enum: [...PAYMENT_PROVIDERS, 'admin'] }).notNull(),
    status: text('status', { enum: SUBSCRIPTION_STATUSES }).notNull().default('inactive'),
    plan: text('plan', { enum: PLAN_TYPES }),
    gateway: text('gateway', { enum: [...GATEWAYS, 'admin'] }),
    /** Stripe subscription id or BTCPay invoice id. */
    externalId: text('external_id'),
    currentPeriodEnd: timestamp('current_period_end', { withTimezone: true }),
    trialEnd: timestamp('trial_end', { withTimezone: true }),
    /** A card subscription cancelled by its owner: it stays until the period ends and does not renew. */
    cancelAtPeriodEnd: boolean('cancel_at_period_end').notNull().default(false),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.provider] }),
    index('subscriptions_external_idx').on(t.provider, t.externalId),
  ],
);

/**
 * An account's billing record, one per user: its Stripe customer (reused by every later checkout), when
 * its one free trial started, and until when a checkout or plan change being made holds it (one at a
 * time, whichever server process takes it).
 */
export const billingAccounts = pgTable(
  'billing_accounts',
  {
    userId: uuid('user_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    stripeCustomerId: text('stripe_customer_id'),
    trialUsedAt: timestamp('trial_used_at', { withTimezone: true }),
    busyUntil: timestamp('busy_until', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('billing_accounts_stripe_customer_idx').on(t.stripeCustomerId)],
);

/** A checkout started by `create-payment-session`; the provider's id maps its events back to the user. */
export const checkoutSessions = pgTable(
  'checkout_sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    plan: text('plan', { enum: PLAN_TYPES }).notNull(),
    provider: text('provider', { enum: PAYMENT_PROVIDERS }).notNull(),
    gateway: text('gateway', { enum: GATEWAYS }).notNull(),
    externalId: text('external_id').notNull(),
    /** Whether this checkout offers the free trial (a card checkout of an account that never had one). */
    trial: boolean('trial').notNull().default(false),
    status: text('status', { enum: ['open', 'completed', 'expired', 'invalid', 'canceled'] })
      .notNull()
      .default('open'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('checkout_sessions_external_idx').on(t.gateway, t.externalId),
    index('checkout_sessions_user_idx').on(t.userId),
  ],
);

/** Every webhook event applied, by the provider's event id: a replay finds its id here and changes nothing. */
export const paymentEvents = pgTable(
  'payment_events',
  {
    source: text('source', { enum: ['stripe', 'btcpay'] }).notNull(),
    eventId: text('event_id').notNull(),
    type: text('type').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.source, t.eventId] })],
);

/** What admins did, readable by admins. */
export const adminAudit = pgTable(
  'admin_audit',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    actorId: uuid('actor_id').references(() => users.id, { onDelete: 'set null' }),
    action: text('action').notNull(),
    targetUserId: uuid('target_user_id').references(() => users.id, { onDelete: 'set null' }),
    detail: jsonb('detail').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('admin_audit_created_idx').on(t.createdAt)],
);
