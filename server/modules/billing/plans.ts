import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { SubscriptionStatus } from '../../../src/contracts/billing';
import { BillingRepo, type SubscriptionRow } from './billing.repo';

/** The two plans of docs/product.md §1. */
export type PlanName = 'free' | 'premium';

/** What each plan allows. Every gate in the product reads these through `PlanReader`, nowhere else. */
export interface PlanLimits {
  /** Auto-trade rules that may be active at once; `null` is unlimited. */
  activeRules: number | null;
  /** Whether news sources marked premium reach this user. */
  premiumSources: boolean;
  /** Priority support shown in the account. */
  prioritySupport: boolean;
}

export const PLAN_LIMITS: Record<PlanName, PlanLimits> = {
  free: { activeRules: 3, premiumSources: false, prioritySupport: false },
  premium: { activeRules: null, premiumSources: true, prioritySupport: true },
};

/** The one function of the billing side that other modules ask for a user's plan. */
export interface PlanReader {
  planOf(userId: string): Promise<PlanName>;
  limitsOf(userId: string): Promise<PlanLimits>;
  /** The subscription's status as the account sees it (`GET /users/me`): a lapsed period reads expired. */
  statusOf(userId: string): Promise<SubscriptionStatus>;
}

declare module 'fastify' {
  interface FastifyInstance {
    plans: PlanReader;
  }
}

/** Every account on the free plan: for tests and tools that run without a database. */
export const freePlanReader: PlanReader = {
  planOf: async () => 'free',
  limitsOf: async () => PLAN_LIMITS.free,
  statusOf: async () => 'inactive',
};

/** Premium while the subscription is active and its period has not ended; everything else is free. */
export function isPremium(row: SubscriptionRow | undefined, now: Date): boolean {
  if (row === undefined || row.status !== 'active') return false;
  return row.currentPeriodEnd === null || row.currentPeriodEnd > now;
}

/** The status a stored row reads as now: none is inactive, an active one past its period is expired. */
export function statusOfRow(row: SubscriptionRow | undefined, now: Date): SubscriptionStatus {
  if (row === undefined) return 'inactive';
  return row.status === 'active' && !isPremium(row, now) ? 'expired' : row.status;
}

/**
 * A subscription that goes on by itself at the end of its period: a card one, unless its owner cancelled
 * it or it is the offline sandbox's (which charges nothing and renews nothing).
 */
export const renews = (row: SubscriptionRow): boolean =>
  row.provider === 'card' && row.gateway !== 'sandbox' && !row.cancelAtPeriodEnd;

const PROVIDER_ORDER: Record<SubscriptionRow['provider'], number> = { card: 0, crypto: 1, admin: 2 };
const endOf = (row: SubscriptionRow): number => row.currentPeriodEnd?.getTime() ?? Infinity;

/**
 * The rows that have not ended (active, or a card subscription on hold), the one that lasts longest
 * first; a card subscription before a crypto period or a grant that ends at the same time.
 */
export function currentRows(rows: readonly SubscriptionRow[], now: Date): SubscriptionRow[] {
  return rows
    .filter((r) => isPremium(r, now) || r.status === 'past_due')
    .sort((a, b) => {
      const premium = Number(isPremium(b, now)) - Number(isPremium(a, now));
      if (premium !== 0) return premium;
      const end = endOf(b) - endOf(a);
      return end !== 0 ? end : PROVIDER_ORDER[a.provider] - PROVIDER_ORDER[b.provider];
    });
}

/**
 * The row that speaks for the account as a whole: the current one that lasts longest, or else the one
 * changed last (what ended most recently).
 */
export function leadingRow(rows: readonly SubscriptionRow[], now: Date): SubscriptionRow | undefined {
  const [current] = currentRows(rows, now);
  if (current !== undefined) return current;
  return [...rows].sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime())[0];
}

/** Premium while any of the user's subscriptions is (a card one, a crypto period, a grant). */
export const isPremiumAny = (rows: readonly SubscriptionRow[], now: Date): boolean =>
  rows.some((r) => isPremium(r, now));

/** The account's status: active while any subscription is, else what the last one to change reads. */
export const statusOfRows = (rows: readonly SubscriptionRow[], now: Date): SubscriptionStatus =>
  statusOfRow(leadingRow(rows, now), now);

/** The reader over the stored subscriptions. */
export function subscriptionPlanReader(repo: BillingRepo, now: () => Date = () => new Date()): PlanReader {
  const planOf = async (userId: string): Promise<PlanName> =>
    isPremiumAny(await repo.subscriptionsOf(userId), now()) ? 'premium' : 'free';
  return {
    planOf,
    limitsOf: async (userId) => PLAN_LIMITS[await planOf(userId)],
    statusOf: async (userId) => statusOfRows(await repo.subscriptionsOf(userId), now()),
  };
}

/** Decorates `app.plans`, registered before the modules that gate on the plan. */
export default fp(
  async function plansPlugin(app: FastifyInstance) {
    app.decorate('plans', subscriptionPlanReader(new BillingRepo(app.database.db)));
  },
  { name: 'plans' },
);
