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

/** The reader over the stored subscriptions. */
export function subscriptionPlanReader(repo: BillingRepo, now: () => Date = () => new Date()): PlanReader {
  const planOf = async (userId: string): Promise<PlanName> =>
    isPremium(await repo.subscriptionOf(userId), now()) ? 'premium' : 'free';
  return {
    planOf,
    limitsOf: async (userId) => PLAN_LIMITS[await planOf(userId)],
    statusOf: async (userId) => statusOfRow(await repo.subscriptionOf(userId), now()),
  };
}

/** Decorates `app.plans`, registered before the modules that gate on the plan. */
export default fp(
  async function plansPlugin(app: FastifyInstance) {
    app.decorate('plans', subscriptionPlanReader(new BillingRepo(app.database.db)));
  },
  { name: 'plans' },
);
