import { randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import {
  PLANS,
  TRIAL_DAYS,
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
import type { BillingRepo } from './billing.repo';
import { type CheckoutRow, type SubscriptionRow } from './billing.repo';
import {
  BtcpayEvent,
  fromEpoch,
  fromStripeStatus,
  StripeCheckoutSession,
  StripeEvent,
  StripePreviousAttributes,
  StripeInvoice,
  StripeSubscription,
} from './events';
import type { CheckoutGateway } from './providers';
import { verifyBtcpay, verifyStripe } from './webhooks';
import type { ActivityService } from '../activity/activity.service';
import { day, premium, stripeChanges } from './stripe-changes';

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

/** A line for the owner's activity log, written once the event's transaction has committed. */
interface PlanLine {
  userId: string;
  plan: string;
}

export interface WebhookResult {
  received: true;
  applied: boolean;
}

/** Subscriptions: checkouts, the provider events that change them, and the plan every gate reads. */
export class BillingService implements PlanReader {
  private readonly repo: BillingRepo;
  private readonly now: () => Date;

  constructor(private readonly deps: BillingDeps) {
    this.repo = deps.repo;
    this.now = deps.now ?? (() => new Date());
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
  async receiveStripe(raw: string, signature: string | undefined): Promise<WebhookResult> {
    const body = verifyStripe(
      this.deps.stripe,
      raw,
      signature,
      this.deps.secrets.stripe,
      this.now().getTime(),
    );
    const event = StripeEvent.safeParse(body);
    if (!event.success) throw appError('BAD_REQUEST', 'Malformed event.');
    const { id, type, data } = event.data;
    // Read before the transaction: a network call never holds one open.
    const current = await this.currentSubscription(type, data.object);
    const lines: PlanLine[] = [];
    const applied = await this.repo.applyEvent({ source: 'stripe', eventId: id, type }, (tx) =>
      this.applyStripe(tx, type, data, current, lines),
    );
    // An event already applied (a replay) records nothing: its lines were written the first time.
    if (applied) await this.recordPlans(lines);
    return { received: true, applied };
  }

  /**
   * The subscription an event is about, as Stripe holds it now: events arrive late, twice and out of
   * order, so their own copy may be older than one already applied. Null when Stripe does not know it;
   * undefined for an event about no subscription, or when the card gateway is not Stripe (the sandbox
   * only ever sends its own checkout events). Stripe unreachable is a 503, and Stripe delivers again.
   */
  private async currentSubscription(
    type: string,
    object: Record<string, unknown>,
  ): Promise<StripeSubscription | null | undefined> {
    if (this.deps.gateways.card?.gateway !== 'stripe') return undefined;
    let subId: string | null | undefined;
    if (type === 'customer.subscription.updated' || type === 'customer.subscription.deleted') {
      subId = StripeSubscription.parse(object).id;
    } else if (type === 'invoice.payment_failed') {
      const invoice = StripeInvoice.parse(object);
      subId = invoice.subscription ?? invoice.parent?.subscription_details?.subscription;
    }
    if (subId === null || subId === undefined) return undefined;
    try {
      return StripeSubscription.parse(await this.deps.stripe.subscriptions.retrieve(subId));
    } catch (err) {
      if (err instanceof Stripe.errors.StripeInvalidRequestError && err.statusCode === 404) return null;
      throw appError('SERVICE_UNAVAILABLE', 'The payment provider is unavailable. Please try again later.');
    }
  }

  /** Written after the event's transaction, so a line never describes a change that was rolled back. */
  private async recordPlans(lines: PlanLine[]): Promise<void> {
    for (const { userId, plan } of lines) {
      await this.deps.activity?.record(userId, { kind: 'plan_changed', detail: { plan } });
    }
  }

  private async applyStripe(
    tx: BillingRepo,
    type: string,
    data: StripeEvent['data'],
    current: StripeSubscription | null | undefined,
    lines: PlanLine[],
  ): Promise<void> {
    const object = data.object;
    const now = this.now();
    // A subscription Stripe no longer knows: nothing to apply.
    if (current === null) return;
    if (type === 'checkout.session.completed') {
      const session = StripeCheckoutSession.parse(object);
      const checkout = await tx.checkoutByExternalId(
        this.deps.gateways.card?.gateway ?? 'stripe',
        session.id,
      );
      if (checkout === undefined) return;
      // A checkout pays once, whatever the event id (a second event for one session is no fresh trial);
      // the claim is one conditional UPDATE, so two deliveries at once cannot both pass it.
      if (!(await tx.claimCheckout(checkout.id, 'completed'))) return;
      const trialEnd = new Date(now.getTime() + TRIAL_DAYS * DAY_MS);
      await tx.upsertSubscription(checkout.userId, {
        status: 'active',
        plan: checkout.plan,
        provider: 'card',
        gateway: checkout.gateway,
        externalId: session.subscription ?? session.id,
        trialEnd,
        currentPeriodEnd: trialEnd,
      });
      lines.push({ userId: checkout.userId, plan: `Premium ${checkout.plan}, paid by card` });
    } else if (type === 'customer.subscription.updated' || type === 'customer.subscription.deleted') {
      const sub = current ?? StripeSubscription.parse(object);
      const end = sub.current_period_end ?? sub.items?.data[0]?.current_period_end;
      const before = await tx.subscriptionByExternalId(sub.id);
      const patch = {
        status: type === 'customer.subscription.deleted' ? 'canceled' : fromStripeStatus(sub.status),
        ...(end !== undefined && end !== null ? { currentPeriodEnd: fromEpoch(end) } : {}),
        ...(sub.trial_end !== undefined ? { trialEnd: fromEpoch(sub.trial_end) } : {}),
      } satisfies Partial<SubscriptionRow>;
      await tx.updateSubscriptionByExternalId(sub.id, patch);
      if (before !== undefined) {
        const previous = StripePreviousAttributes.safeParse(data.previous_attributes ?? {});
        const cancelAtEnd =
          previous.success && previous.data.cancel_at_period_end !== undefined
            ? (sub.cancel_at_period_end ?? false)
            : undefined;
        for (const plan of stripeChanges(before, { ...before, ...patch }, cancelAtEnd)) {
          lines.push({ userId: before.userId, plan });
        }
      }
    } else if (type === 'invoice.payment_failed') {
      const invoice = StripeInvoice.parse(object);
      const subId = invoice.subscription ?? invoice.parent?.subscription_details?.subscription;
      if (subId !== null && subId !== undefined) {
        const before = await tx.subscriptionByExternalId(subId);
        // Stripe's state now: a later payment may already have made it active again.
        const status = current === undefined ? 'past_due' : fromStripeStatus(current.status);
        await tx.updateSubscriptionByExternalId(subId, { status });
        if (before !== undefined && before.status !== 'past_due' && status === 'past_due') {
          lines.push({ userId: before.userId, plan: `${premium(before)} on hold: a card payment failed` });
        }
      }
    }
    // Any other type is acknowledged and ignored.
  }

  /** `POST /subscriptions/webhooks/btcpay`. */
  async receiveBtcpay(raw: string, signature: string | undefined): Promise<WebhookResult> {
    const body = verifyBtcpay(raw, signature, this.deps.secrets.btcpay);
    const event = BtcpayEvent.safeParse(body);
    if (!event.success) throw appError('BAD_REQUEST', 'Malformed event.');
    const { deliveryId, originalDeliveryId, type, invoiceId } = event.data;
    const eventId = originalDeliveryId ?? deliveryId;
    const lines: PlanLine[] = [];
    const applied = await this.repo.applyEvent({ source: 'btcpay', eventId, type }, async (tx) => {
      if (invoiceId === null || invoiceId === undefined) return;
      const gateway = this.deps.gateways.crypto?.gateway ?? 'btcpay';
      const checkout = await tx.checkoutByExternalId(gateway, invoiceId);
      if (checkout === undefined) return;
      // An invoice pays once: a second "settled" for it (a new delivery, not a redelivery) adds nothing.
      if (type === 'InvoiceSettled') {
        if (!(await tx.claimCheckout(checkout.id, 'completed'))) return;
        const until = await this.settleCrypto(tx, checkout);
        lines.push({
          userId: checkout.userId,
          plan: `Premium ${checkout.plan}, paid by crypto, until ${day(until)}`,
        });
      }
      // An invoice that expires or is invalid was never paid: the plan is what it was, nothing to log.
      else if (type === 'InvoiceExpired') await tx.claimCheckout(checkout.id, 'expired');
      else if (type === 'InvoiceInvalid') await tx.claimCheckout(checkout.id, 'invalid');
    });
    if (applied) await this.recordPlans(lines);
    return { received: true, applied };
  }

  /** A paid invoice buys one period, added to what is left of an active one; answers its new end. */
  private async settleCrypto(tx: BillingRepo, checkout: CheckoutRow): Promise<Date> {
    const now = this.now();
    const current = await tx.subscriptionOf(checkout.userId);
    const left =
      current?.status === 'active' && current.currentPeriodEnd !== null ? current.currentPeriodEnd : now;
    const from = left > now ? left : now;
    const until = new Date(from.getTime() + PLANS[checkout.plan].days * DAY_MS);
    await tx.upsertSubscription(checkout.userId, {
      status: 'active',
      plan: checkout.plan,
      provider: 'crypto',
      gateway: checkout.gateway,
      externalId: checkout.externalId,
      trialEnd: null,
      currentPeriodEnd: until,
    });
    return until;
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
