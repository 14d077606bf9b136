import { z } from 'zod';
import { Health } from './health';
import { SourceReceipts } from './signals';

/** Subscriptions and payments (docs/product.md §1, §3, §7, §8, §9), shared by the server routes and the browser. */

export const PlanType = z.enum(['monthly', 'yearly']);
export type PlanType = z.infer<typeof PlanType>;
export const PaymentProvider = z.enum(['card', 'crypto']);
export type PaymentProvider = z.infer<typeof PaymentProvider>;

export const CreatePaymentSessionRequest = z.object({ planType: PlanType, provider: PaymentProvider });
export type CreatePaymentSessionRequest = z.infer<typeof CreatePaymentSessionRequest>;

export const PaymentSession = z.object({ checkout_url: z.string() });
export type PaymentSession = z.infer<typeof PaymentSession>;

export const SubscriptionStatus = z.enum(['inactive', 'active', 'past_due', 'canceled', 'expired']);
export type SubscriptionStatus = z.infer<typeof SubscriptionStatus>;

/**
 * One way Premium is paid for now (a card subscription, a crypto period, an administrator's grant), while
 * it has not ended: a card one and a crypto one can run side by side.
 */
export const SubscriptionEntry = z.object({
  provider: z.enum(['card', 'crypto', 'admin']),
  status: SubscriptionStatus,
  plan: PlanType.nullable(),
  current_period_end: z.string().nullable(),
  trial_end: z.string().nullable(),
  /** A card subscription cancelled by its owner: it stays until `current_period_end`, then ends. */
  cancel_at_period_end: z.boolean(),
});
export type SubscriptionEntry = z.infer<typeof SubscriptionEntry>;

/**
 * `GET /subscriptions/me`. Dates are ISO strings or null. The first five fields speak for the account as
 * a whole (Premium while any subscription is active; the one that lasts longest); `subscriptions` lists
 * each one that has not ended.
 */
export const SubscriptionView = z.object({
  status: SubscriptionStatus,
  current_period_end: z.string().nullable(),
  plan: PlanType.nullable(),
  provider: z.enum(['card', 'crypto', 'admin']).nullable(),
  trial_end: z.string().nullable(),
  subscriptions: SubscriptionEntry.array(),
  /** The account had its one free trial: no checkout offers it again. */
  trial_used: z.boolean(),
});
export type SubscriptionView = z.infer<typeof SubscriptionView>;

/**
 * `POST /api/subscriptions/cancel`: a card subscription cancelled at the end of its period (`scheduled`,
 * with Stripe), or Premium ended at once (`ended`, the offline sandbox).
 */
export const CancelAnswer = z.object({
  action: z.enum(['scheduled', 'ended']),
  message: z.string(),
});
export type CancelAnswer = z.infer<typeof CancelAnswer>;

/** `POST /api/subscriptions/change-plan`: the card subscription moves to the other plan. */
export const ChangePlanRequest = z.object({ planType: PlanType });
export type ChangePlanRequest = z.infer<typeof ChangePlanRequest>;
export const ChangePlanAnswer = z.object({ message: z.string(), subscription: SubscriptionView });
export type ChangePlanAnswer = z.infer<typeof ChangePlanAnswer>;

/** docs/product.md §9. Prices in US dollars. */
export const PLANS = {
  monthly: { price: 179, per: 'month', days: 30 },
  yearly: { price: 1790, per: 'year', days: 365, badge: 'SAVE 20%' },
} as const;
export const TRIAL_DAYS = 7;
/** Ours: what a card checkout that starts the free trial costs today (the modal and the checkout page). */
export const TRIAL_TODAY = `${TRIAL_DAYS}-day trial, $0 today`;
/** `7-day trial, $0 today, then $179 per month`. */
export const trialThen = (plan: keyof typeof PLANS): string =>
  `${TRIAL_TODAY}, then $${PLANS[plan].price} per ${PLANS[plan].per}`;
export const PREMIUM_FEATURES = [
  'Real-time AI signals',
  'Unlimited auto-trading rules',
  'All news sources',
  'Priority support',
] as const;

/** Pending page (docs/product.md §9): poll every 10 s, give up after 300 s. */
export const PENDING_POLL_MS = 10_000;
export const PENDING_GIVE_UP_MS = 300_000;

/** docs/product.md §8. */
export const BILLING_MESSAGES = {
  statusUnreadable:
    'Could not verify subscription status. Please check your account page or contact support.',
  sessionFailed: 'An unexpected error occurred. Please try again.',
  providerUnavailable: 'The payment provider is unavailable. Please try again later.',
  /** Ours: a cancel the server did not answer. */
  cancelFailed: 'Could not cancel your plan. Please try again.',
  /** Ours: a switch of plan the server did not answer. */
  changeFailed: 'Could not switch your plan. Please try again.',
} as const;

/** Admin panel (`/admin/*`). */
export const AdminUser = z.object({
  id: z.string(),
  /** Null for an account made by a wallet or a social sign-in without e-mail. */
  email: z.string().nullable(),
  username: z.string(),
  role: z.enum(['user', 'admin']),
  disabled: z.boolean(),
  subscription: SubscriptionView,
  created_at: z.string(),
});
export type AdminUser = z.infer<typeof AdminUser>;

export const GrantPremiumRequest = z.object({
  premium: z.boolean(),
  days: z.number().int().min(1).max(3650).default(30),
});
export const DisableUserRequest = z.object({ disabled: z.boolean() });

export const AuditEntry = z.object({
  id: z.string(),
  actor_id: z.string().nullable(),
  action: z.string(),
  target_user_id: z.string().nullable(),
  detail: z.record(z.string(), z.unknown()),
  created_at: z.string(),
});
export type AuditEntry = z.infer<typeof AuditEntry>;

/** `GET /admin/sources`: the health answer, and how many signals each source brought in. */
export const IngestionCount = z.object({
  source: z.string(),
  total: z.number().int(),
  /** Received in the last 24 hours. */
  last_24h: z.number().int(),
  /** Whether this source's items reach Premium accounts only (`PREMIUM_NEWS_SOURCES`). */
  premium: z.boolean(),
});
export type IngestionCount = z.infer<typeof IngestionCount>;
export const AdminSources = z.object({
  health: Health,
  ingestion: IngestionCount.array(),
  /** Each source's lag from publication to arrival over the last hour; optional for older servers. */
  receipts: SourceReceipts.optional(),
});
export type AdminSources = z.infer<typeof AdminSources>;
