import Stripe from 'stripe';
import { PLANS, TRIAL_DAYS } from '../../../src/contracts/billing';
import { appError } from '../../plugins/errors';
import type { ActivityService } from '../activity/activity.service';
import type { BillingRepo, CheckoutRow } from './billing.repo';
import {
  BtcpayEvent,
  cardPatchOf,
  fromStripeStatus,
  refId,
  StripeCheckoutSession,
  StripeEvent,
  StripePreviousAttributes,
  StripeInvoice,
  StripeSubscription,
} from './events';
import { isPremium, renews } from './plans';
import type { CheckoutGateway } from './providers';
import { day, premium, stripeChanges } from './stripe-changes';
import { verifyBtcpay, verifyStripe } from './webhooks';

const DAY_MS = 86_400_000;

export interface ProviderEventsDeps {
  repo: BillingRepo;
  gateways: { card: CheckoutGateway | null; crypto: CheckoutGateway | null };
  stripe: Stripe;
  secrets: { stripe: string | undefined; btcpay: string | undefined };
  now: () => Date;
  activity?: Pick<ActivityService, 'record'>;
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

/**
 * The payment providers' signed events and what each does to a subscription: each is applied once
 * (by its id) in one transaction, and the plan lines for the owner's activity log are written after it
 * commits.
 */
export class ProviderEvents {
  private readonly repo: BillingRepo;
  private readonly now: () => Date;

  constructor(private readonly deps: ProviderEventsDeps) {
    this.repo = deps.repo;
    this.now = deps.now;
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
      // The trial is the one the checkout offered (only to an account that never had one); without it
      // the first period is paid now. Stripe's own events then say the exact period.
      const trialEnd = checkout.trial ? new Date(now.getTime() + TRIAL_DAYS * DAY_MS) : null;
      await tx.upsertSubscription(checkout.userId, 'card', {
        status: 'active',
        plan: checkout.plan,
        gateway: checkout.gateway,
        externalId: session.subscription ?? session.id,
        trialEnd,
        cancelAtPeriodEnd: false,
        currentPeriodEnd: trialEnd ?? new Date(now.getTime() + PLANS[checkout.plan].days * DAY_MS),
      });
      if (checkout.trial) await tx.markTrialUsed(checkout.userId, now);
      const customer = refId(session.customer);
      if (checkout.gateway === 'stripe' && customer !== null) {
        await tx.rememberCustomer(checkout.userId, customer);
      }
      lines.push({ userId: checkout.userId, plan: `Premium ${checkout.plan}, paid by card` });
    } else if (type === 'customer.subscription.updated' || type === 'customer.subscription.deleted') {
      const sub = current ?? StripeSubscription.parse(object);
      // Only the card row this subscription is: never a crypto period, nor an older card subscription.
      const before = await tx.subscriptionByExternalId('card', sub.id);
      const patch = cardPatchOf(sub, type === 'customer.subscription.deleted');
      await tx.updateSubscriptionByExternalId('card', sub.id, patch);
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
        const before = await tx.subscriptionByExternalId('card', subId);
        // Stripe's state now: a later payment may already have made it active again.
        const status = current === undefined ? 'past_due' : fromStripeStatus(current.status);
        await tx.updateSubscriptionByExternalId('card', subId, { status });
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

  /**
   * A paid invoice buys one period, added after what is left of the Premium that will not renew (this
   * crypto period, a grant, a card subscription cancelled at its end or the sandbox's); answers its new
   * end. It changes the crypto row only.
   */
  private async settleCrypto(tx: BillingRepo, checkout: CheckoutRow): Promise<Date> {
    const now = this.now();
    const left = (await tx.subscriptionsOf(checkout.userId))
      .filter((r) => isPremium(r, now) && !renews(r))
      .map((r) => r.currentPeriodEnd ?? now);
    const from = left.reduce((a, b) => (b > a ? b : a), now);
    const until = new Date(from.getTime() + PLANS[checkout.plan].days * DAY_MS);
    await tx.upsertSubscription(checkout.userId, 'crypto', {
      status: 'active',
      plan: checkout.plan,
      gateway: checkout.gateway,
      externalId: checkout.externalId,
      trialEnd: null,
      cancelAtPeriodEnd: false,
      currentPeriodEnd: until,
    });
    return until;
  }
}
