import type Stripe from 'stripe';
import type {
  CancelAnswer,
  ChangePlanAnswer,
  CreatePaymentSessionRequest,
  PaymentSession,
  PlanType,
  SubscriptionEntry,
  SubscriptionStatus,
  SubscriptionView,
} from '../../../src/contracts/billing';
import { appError } from '../../plugins/errors';
import {
  currentRows,
  isPremium,
  isPremiumAny,
  leadingRow,
  PLAN_LIMITS,
  statusOfRow,
  statusOfRows,
  type PlanLimits,
  type PlanName,
  type PlanReader,
} from './plans';
import type { BillingAccountRow, BillingRepo, SubscriptionRow } from './billing.repo';
import type { CheckoutGateway } from './providers';
import type { ActivityService } from '../activity/activity.service';
import { CardSubscriptions } from './card-subscriptions';
import { Checkouts } from './checkouts';
import { PlanChanges } from './plan-changes';
import { ProviderEvents, type WebhookResult } from './provider-events';

export type { WebhookResult } from './provider-events';

const DAY_MS = 86_400_000;
/**
 * How long a checkout or a plan change holds the account's billing record: longer than the few Stripe
 * calls it makes (10 s each at most), so that a process that died while holding it frees it soon.
 */
const HOLD_MS = 60_000;

export interface BillingDeps {
  repo: BillingRepo;
  /** Null for a provider this server does not offer. */
  gateways: { card: CheckoutGateway | null; crypto: CheckoutGateway | null };
  /**
   * Verifies Stripe events; when the card gateway is the real Stripe, also re-reads a subscription an
   * event names (so that events delivered late or out of order never undo a newer state), and cancels or
   * switches the plan of an existing card subscription.
   */
  stripe: Stripe;
  /** The secrets webhooks are checked with: the provider's own, or the sandbox's when it stands in. */
  secrets: { stripe: string | undefined; btcpay: string | undefined };
  now?: () => Date;
  /** The account activity log: a plan that starts or is granted is a line in it. */
  activity?: Pick<ActivityService, 'record'>;
}

/**
 * Subscriptions: checkouts (checkouts.ts), cancelling and switching a plan (plan-changes.ts), the
 * provider events that change them (provider-events.ts), and the plan every gate reads.
 */
export class BillingService implements PlanReader {
  private readonly repo: BillingRepo;
  private readonly now: () => Date;
  /** Applies the providers' webhook events. */
  private readonly events: ProviderEvents;
  private readonly checkouts: Checkouts;
  private readonly changes: PlanChanges;

  constructor(private readonly deps: BillingDeps) {
    this.repo = deps.repo;
    this.now = deps.now ?? (() => new Date());
    const cards = new CardSubscriptions(deps.stripe);
    this.checkouts = new Checkouts({ repo: deps.repo, gateways: deps.gateways, cards, now: this.now });
    this.changes = new PlanChanges({
      repo: deps.repo,
      cards,
      now: this.now,
      ...(deps.activity === undefined ? {} : { activity: deps.activity }),
    });
    this.events = new ProviderEvents({
      repo: deps.repo,
      gateways: deps.gateways,
      stripe: deps.stripe,
      secrets: deps.secrets,
      now: this.now,
      ...(deps.activity === undefined ? {} : { activity: deps.activity }),
    });
  }

  /**
   * Runs `work` holding the account's billing record, so that one checkout or plan change at a time is
   * made for an account (whichever server process serves it); any other at the same time is a 409.
   */
  private async holding<T>(userId: string, work: (account: BillingAccountRow) => Promise<T>): Promise<T> {
    const now = this.now();
    const until = new Date(now.getTime() + HOLD_MS);
    const account = await this.repo.holdAccount(userId, now, until);
    if (account === undefined) {
      throw appError(
        'CONFLICT',
        'Another checkout or plan change for your account is under way. Please try again in a moment.',
      );
    }
    try {
      return await work(account);
    } finally {
      await this.repo.releaseAccount(userId, until);
    }
  }

  /**
   * A checkout for Premium ({@link Checkouts.open}), one at a time for an account; a provider this server
   * does not offer is a 503.
   */
  async createSession(userId: string, req: CreatePaymentSessionRequest): Promise<PaymentSession> {
    const gateway = this.deps.gateways[req.provider];
    if (gateway === null) {
      throw appError(
        'SERVICE_UNAVAILABLE',
        req.provider === 'card'
          ? 'Card payments are not offered on this server.'
          : 'Crypto payments are not offered on this server.',
      );
    }
    return this.holding(userId, (account) => this.checkouts.open(userId, account, req, gateway));
  }

  /** Cancels the account's subscription ({@link PlanChanges.cancel}). */
  cancel(userId: string): Promise<CancelAnswer> {
    return this.changes.cancel(userId);
  }

  /** Switches the card subscription's plan ({@link PlanChanges.switchCard}), one change at a time. */
  async changePlan(userId: string, planType: PlanType): Promise<ChangePlanAnswer> {
    return this.holding(userId, async () => {
      const { message, rows } = await this.changes.switchCard(userId, planType);
      return { message, subscription: this.view(rows, await this.repo.account(userId)) };
    });
  }

  async me(userId: string): Promise<SubscriptionView> {
    const [rows, account] = await Promise.all([this.repo.subscriptionsOf(userId), this.repo.account(userId)]);
    return this.view(rows, account);
  }

  view(rows: readonly SubscriptionRow[], account: BillingAccountRow | undefined): SubscriptionView {
    const now = this.now();
    const lead = leadingRow(rows, now);
    const trialUsed = account?.trialUsedAt !== null && account?.trialUsedAt !== undefined;
    const subscriptions = currentRows(rows, now).map((r): SubscriptionEntry => ({
      provider: r.provider,
      status: statusOfRow(r, now),
      plan: r.plan,
      current_period_end: r.currentPeriodEnd?.toISOString() ?? null,
      trial_end: r.trialEnd?.toISOString() ?? null,
      cancel_at_period_end: r.cancelAtPeriodEnd,
    }));
    if (lead === undefined) {
      return {
        status: 'inactive',
        current_period_end: null,
        plan: null,
        provider: null,
        trial_end: null,
        subscriptions,
        trial_used: trialUsed,
      };
    }
    return {
      status: statusOfRow(lead, now),
      current_period_end: lead.currentPeriodEnd?.toISOString() ?? null,
      plan: lead.plan,
      provider: lead.provider,
      trial_end: lead.trialEnd?.toISOString() ?? null,
      subscriptions,
      trial_used: trialUsed,
    };
  }

  /** The one gate: Premium while any subscription is active and its period has not ended. */
  async planOf(userId: string): Promise<PlanName> {
    return isPremiumAny(await this.repo.subscriptionsOf(userId), this.now()) ? 'premium' : 'free';
  }

  async statusOf(userId: string): Promise<SubscriptionStatus> {
    return statusOfRows(await this.repo.subscriptionsOf(userId), this.now());
  }

  async limitsOf(userId: string): Promise<PlanLimits> {
    return PLAN_LIMITS[await this.planOf(userId)];
  }

  /** `POST /subscriptions/webhooks/stripe`. */
  receiveStripe(raw: string, signature: string | undefined): Promise<WebhookResult> {
    return this.events.receiveStripe(raw, signature);
  }

  /** `POST /subscriptions/webhooks/btcpay`. */
  receiveBtcpay(raw: string, signature: string | undefined): Promise<WebhookResult> {
    return this.events.receiveBtcpay(raw, signature);
  }

  /**
   * Admin: Premium granted for `days` (a grant of its own, beside any paid subscription), or taken away
   * (every subscription that is active ends here; a card subscription is not cancelled at Stripe).
   */
  async setPremiumByAdmin(userId: string, premium: boolean, days: number): Promise<void> {
    const now = this.now();
    if (premium) {
      await this.repo.upsertSubscription(userId, 'admin', {
        status: 'active',
        plan: null,
        gateway: 'admin',
        externalId: null,
        trialEnd: null,
        cancelAtPeriodEnd: false,
        currentPeriodEnd: new Date(now.getTime() + days * DAY_MS),
      });
    } else {
      for (const row of await this.repo.subscriptionsOf(userId)) {
        if (row.provider !== 'admin' && isPremium(row, now)) {
          await this.repo.upsertSubscription(userId, row.provider, { status: 'canceled' });
        }
      }
      await this.repo.upsertSubscription(userId, 'admin', { status: 'canceled', gateway: 'admin' });
    }
    await this.deps.activity?.record(userId, {
      kind: 'plan_changed',
      detail: {
        plan: premium ? `Premium for ${days} days, granted by an admin` : 'Free (Premium ended by an admin)',
      },
    });
  }
}
