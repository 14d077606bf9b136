import { randomUUID } from 'node:crypto';
import type Stripe from 'stripe';
import {
  type CreatePaymentSessionRequest,
  type PaymentSession,
  type SubscriptionStatus,
  type SubscriptionView,
  type CancelAnswer,
} from '../../../src/contracts/billing';
import { appError } from '../../plugins/errors';
import {
  isPremium,
  PLAN_LIMITS,
  statusOfRow,
  type PlanLimits,
  type PlanName,
  type PlanReader,
} from './plans';
import type { BillingRepo, SubscriptionRow } from './billing.repo';
import type { CheckoutGateway } from './providers';
import type { ActivityService } from '../activity/activity.service';
import { ProviderEvents, type WebhookResult } from './provider-events';

export type { WebhookResult } from './provider-events';

const DAY_MS = 86_400_000;

export interface BillingDeps {
  repo: BillingRepo;
  /** Null for a provider this server does not offer. */
  gateways: { card: CheckoutGateway | null; crypto: CheckoutGateway | null };
  /**
   * Verifies Stripe events; when the card gateway is the real Stripe, also re-reads a subscription an
   * event names, so that events delivered late or out of order never undo a newer state.
   */
  stripe: Stripe;
  /** The secrets webhooks are checked with: the provider's own, or the sandbox's when it stands in. */
  secrets: { stripe: string | undefined; btcpay: string | undefined };
  now?: () => Date;
  /** The account activity log: a plan that starts or is granted is a line in it. */
  activity?: Pick<ActivityService, 'record'>;
  /** Where Stripe's customer portal sends the browser back to. */
  portalReturnUrl?: string;
}

/** Subscriptions: checkouts, the provider events that change them, and the plan every gate reads. */
export class BillingService implements PlanReader {
  private readonly repo: BillingRepo;
  private readonly now: () => Date;
  /** Applies the providers' webhook events. */
  private readonly events: ProviderEvents;

  constructor(private readonly deps: BillingDeps) {
    this.repo = deps.repo;
    this.now = deps.now ?? (() => new Date());
    this.events = new ProviderEvents({
      repo: deps.repo,
      gateways: deps.gateways,
      stripe: deps.stripe,
      secrets: deps.secrets,
      now: this.now,
      ...(deps.activity === undefined ? {} : { activity: deps.activity }),
    });
  }

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
    const checkoutId = randomUUID();
    const opened = await gateway.create({ checkoutId, userId, plan: req.planType, provider: req.provider });
    await this.repo.insertCheckout({
      id: checkoutId,
      userId,
      plan: req.planType,
      provider: req.provider,
      gateway: gateway.gateway,
      externalId: opened.externalId,
    });
    return { checkout_url: opened.url };
  }

  /**
   * Cancelling: a Stripe subscription is cancelled in Stripe's customer portal (its address is the
   * answer); a sandbox one ends now. A crypto period or a grant has nothing to cancel (409, saying why).
   */
  async cancel(userId: string): Promise<CancelAnswer> {
    const row = await this.repo.subscriptionOf(userId);
    if (row === undefined || !isPremium(row, this.now())) {
      throw appError('CONFLICT', 'You have no Premium subscription to cancel.');
    }
    if (row.gateway === 'stripe' && row.externalId !== null) {
      const sub = await this.deps.stripe.subscriptions.retrieve(row.externalId).catch(portalUnavailable);
      const customer = typeof sub.customer === 'string' ? sub.customer : sub.customer.id;
      const portal = await this.deps.stripe.billingPortal.sessions
        .create({ customer, ...(this.deps.portalReturnUrl ? { return_url: this.deps.portalReturnUrl } : {}) })
        .catch(portalUnavailable);
      return {
        action: 'portal',
        url: portal.url,
        message:
          "Cancel in Stripe's customer portal: Premium stays until the end of the period you paid for.",
      };
    }
    if (row.gateway === 'sandbox') {
      await this.repo.upsertSubscription(userId, { status: 'canceled', currentPeriodEnd: this.now() });
      await this.deps.activity?.record(userId, {
        kind: 'plan_changed',
        detail: { plan: 'Premium cancelled in the sandbox: it ended now' },
      });
      return {
        action: 'ended',
        url: null,
        message: 'Premium cancelled: it ended now. The sandbox charged nothing and renews nothing.',
      };
    }
    throw appError(
      'CONFLICT',
      row.provider === 'admin'
        ? 'Premium was granted by an administrator: nothing renews and there is nothing to cancel.'
        : 'A crypto payment covers one period and does not renew: there is nothing to cancel.',
    );
  }

  async me(userId: string): Promise<SubscriptionView> {
    return this.view(await this.repo.subscriptionOf(userId));
  }

  view(row: SubscriptionRow | undefined): SubscriptionView {
    if (row === undefined) {
      return { status: 'inactive', current_period_end: null, plan: null, provider: null, trial_end: null };
    }
    return {
      status: statusOfRow(row, this.now()),
      current_period_end: row.currentPeriodEnd?.toISOString() ?? null,
      plan: row.plan,
      provider: row.provider,
      trial_end: row.trialEnd?.toISOString() ?? null,
    };
  }

  /** The one gate: Premium while the subscription is active and its period has not ended. */
  async planOf(userId: string): Promise<PlanName> {
    return isPremium(await this.repo.subscriptionOf(userId), this.now()) ? 'premium' : 'free';
  }

  async statusOf(userId: string): Promise<SubscriptionStatus> {
    return statusOfRow(await this.repo.subscriptionOf(userId), this.now());
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

  /** Admin: Premium granted for `days`, or taken away. */
  async setPremiumByAdmin(userId: string, premium: boolean, days: number): Promise<void> {
    await this.repo.upsertSubscription(
      userId,
      premium
        ? {
            status: 'active',
            provider: 'admin',
            gateway: 'admin',
            externalId: null,
            trialEnd: null,
            currentPeriodEnd: new Date(this.now().getTime() + days * DAY_MS),
          }
        : { status: 'canceled' },
    );
    await this.deps.activity?.record(userId, {
      kind: 'plan_changed',
      detail: {
        plan: premium ? `Premium for ${days} days, granted by an admin` : 'Free (Premium ended by an admin)',
      },
    });
  }
}

/** Stripe did not answer or refused: a 503 that says to try again, never a crash. */
function portalUnavailable(err: unknown): never {
  void err;
  throw appError('SERVICE_UNAVAILABLE', "Stripe's customer portal is unavailable. Please try again later.");
}
