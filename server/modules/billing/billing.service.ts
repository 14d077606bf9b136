import { randomBytes, randomUUID } from 'node:crypto';
import type Stripe from 'stripe';
import {
  PLANS,
  TRIAL_DAYS,
  type CreatePaymentSessionRequest,
  type PaymentSession,
  type SubscriptionStatus,
  type SubscriptionView,
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
import { btcpaySignature, verifyBtcpay, verifyStripe } from './webhooks';
import type { ActivityService } from '../activity/activity.service';

const DAY_MS = 86_400_000;

export interface BillingDeps {
  repo: BillingRepo;
  gateways: { card: CheckoutGateway; crypto: CheckoutGateway };
  /** Verifies and, for the sandbox, signs Stripe events; never calls the network for that. */
  stripe: Stripe;
  /** The secrets webhooks are checked with: the provider's own, or the sandbox's when it stands in. */
  secrets: { stripe: string | undefined; btcpay: string | undefined };
  now?: () => Date;
  /** The account activity log: a plan that starts or is granted is a line in it. */
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
    const lines: PlanLine[] = [];
    const applied = await this.repo.applyEvent({ source: 'stripe', eventId: id, type }, (tx) =>
      this.applyStripe(tx, type, data, lines),
    );
    // An event already applied (a replay) records nothing: its lines were written the first time.
    if (applied) await this.recordPlans(lines);
    return { received: true, applied };
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
    lines: PlanLine[],
  ): Promise<void> {
    const object = data.object;
    const now = this.now();
    if (type === 'checkout.session.completed') {
      const session = StripeCheckoutSession.parse(object);
      const checkout =
        (await tx.checkoutByExternalId('stripe', session.id)) ??
        (await tx.checkoutByExternalId('sandbox', session.id));
      if (checkout === undefined) return;
      const trialEnd = new Date(now.getTime() + TRIAL_DAYS * DAY_MS);
      await tx.setCheckoutStatus(checkout.id, 'completed');
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
      const sub = StripeSubscription.parse(object);
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
        await tx.updateSubscriptionByExternalId(subId, { status: 'past_due' });
        if (before !== undefined && before.status !== 'past_due') {
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
      const checkout =
        (await tx.checkoutByExternalId('btcpay', invoiceId)) ??
        (await tx.checkoutByExternalId('sandbox', invoiceId));
      if (checkout === undefined) return;
      // An invoice pays once: a second "settled" for it (a new delivery, not a redelivery) adds nothing.
      if (type === 'InvoiceSettled' && checkout.status !== 'completed') {
        const until = await this.settleCrypto(tx, checkout);
        lines.push({
          userId: checkout.userId,
          plan: `Premium ${checkout.plan}, paid by crypto, until ${day(until)}`,
        });
      }
      // An invoice that expires or is invalid was never paid: the plan is what it was, nothing to log.
      else if (type === 'InvoiceExpired') await tx.setCheckoutStatus(checkout.id, 'expired');
      else if (type === 'InvoiceInvalid') await tx.setCheckoutStatus(checkout.id, 'invalid');
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
    await tx.setCheckoutStatus(checkout.id, 'completed');
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

  /** An open sandbox checkout, for its TEST MODE page; 404 for anything else. */
  async sandboxCheckout(checkoutId: string): Promise<CheckoutRow> {
    const row = /^[0-9a-f-]{36}$/.test(checkoutId) ? await this.repo.checkoutById(checkoutId) : undefined;
    if (row === undefined || row.gateway !== 'sandbox') throw appError('NOT_FOUND');
    return row;
  }

  /**
   * The sandbox's Pay button: it signs the event the real provider would send and feeds it through the
   * same webhook entry point. Returns where the browser goes next.
   */
  async sandboxPay(checkoutId: string): Promise<string> {
    const row = await this.sandboxCheckout(checkoutId);
    if (row.status !== 'open') return row.provider === 'card' ? '/payment/success' : '/payment/pending';
    const id = randomBytes(12).toString('hex');
    if (row.provider === 'card') {
      const payload = JSON.stringify({
        id: `evt_sbx_${id}`,
        object: 'event',
        type: 'checkout.session.completed',
        created: Math.floor(this.now().getTime() / 1000),
        data: {
          object: {
            id: row.externalId,
            object: 'checkout.session',
            client_reference_id: row.userId,
            subscription: `sub_sbx_${id}`,
            metadata: { userId: row.userId, plan: row.plan, checkoutId: row.id },
          },
        },
      });
      const header = this.deps.stripe.webhooks.generateTestHeaderString({
        payload,
        secret: this.deps.secrets.stripe ?? '',
        timestamp: Math.floor(this.now().getTime() / 1000),
      });
      await this.receiveStripe(payload, header);
      return '/payment/success';
    }
    const payload = JSON.stringify({
      deliveryId: `sbx_${id}`,
      originalDeliveryId: `sbx_${id}`,
      isRedelivery: false,
      type: 'InvoiceSettled',
      timestamp: Math.floor(this.now().getTime() / 1000),
      storeId: 'sandbox',
      invoiceId: row.externalId,
    });
    await this.receiveBtcpay(payload, btcpaySignature(payload, this.deps.secrets.btcpay ?? ''));
    return '/payment/pending';
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

const day = (d: Date): string => d.toISOString().slice(0, 10);

const premium = (row: SubscriptionRow): string => (row.plan === null ? 'Premium' : `Premium ${row.plan}`);

/**
 * What a Stripe subscription update changed, as activity lines: a status that moved (canceled, on hold,
 * active again), a paid period that moved on (a renewal), and a cancellation at the period's end set or
 * withdrawn (`cancelAtEnd`, only when Stripe says that attribute changed). Nothing when nothing did.
 */
export function stripeChanges(
  before: SubscriptionRow,
  after: SubscriptionRow,
  cancelAtEnd: boolean | undefined,
): string[] {
  const name = premium(before);
  const lines: string[] = [];
  if (after.status !== before.status) {
    if (after.status === 'canceled') lines.push(`Free (${name} canceled)`);
    else if (after.status === 'expired') lines.push(`Free (${name} expired unpaid)`);
    else if (after.status === 'past_due') lines.push(`${name} on hold: payment due`);
    else if (after.status === 'active')
      lines.push(
        after.currentPeriodEnd === null
          ? `${name} active again`
          : `${name} active again, until ${day(after.currentPeriodEnd)}`,
      );
  } else if (
    after.status === 'active' &&
    after.currentPeriodEnd !== null &&
    (before.currentPeriodEnd === null || after.currentPeriodEnd > before.currentPeriodEnd)
  ) {
    lines.push(`${name} renewed, paid until ${day(after.currentPeriodEnd)}`);
  }
  if (cancelAtEnd === true) {
    const end = after.currentPeriodEnd;
    lines.push(`${name} canceled: it ends ${end === null ? 'with the period' : `on ${day(end)}`}, then Free`);
  } else if (cancelAtEnd === false) lines.push(`${name} continues: the cancellation was withdrawn`);
  return lines;
}
