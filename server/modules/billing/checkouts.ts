import { randomUUID } from 'node:crypto';
import type { CreatePaymentSessionRequest, PaymentSession } from '../../../src/contracts/billing';
import { appError } from '../../plugins/errors';
import type { BillingAccountRow, BillingRepo, SubscriptionRow } from './billing.repo';
import type { CardSubscriptions } from './card-subscriptions';
import { currentRows, isPremium, renews } from './plans';
import type { CheckoutGateway } from './providers';
import { until } from './stripe-changes';

/** `monthly, card`, `yearly, crypto`, `granted by an administrator`: what a subscription is, in brief. */
function describe(row: SubscriptionRow, now: Date): string {
  const how =
    row.provider === 'admin'
      ? 'granted by an administrator'
      : row.provider === 'card'
        ? `card${row.trialEnd !== null && row.trialEnd > now ? ', free trial' : ''}${row.cancelAtPeriodEnd ? ', cancelled' : ''}`
        : 'crypto';
  return row.plan === null ? how : `${row.plan}, ${how}`;
}

/**
 * Why a checkout is refused while Premium is active, or null when it may go ahead. A card checkout needs
 * Premium to have ended: on top of a card subscription it would be a second one billing beside it (a
 * change of plan is a switch of that one instead), and on top of a crypto period or a grant it would
 * charge for time already paid for. A crypto payment is added after what is left, so it is refused only
 * beside a card subscription that still renews (which would go on charging for the same time).
 */
export function checkoutRefusal(
  rows: readonly SubscriptionRow[],
  req: CreatePaymentSessionRequest,
  now: Date,
): string | null {
  const active = currentRows(rows, now).filter((r) => isPremium(r, now));
  const card = active.find((r) => r.provider === 'card');
  const [longest] = active;
  // A card subscription on hold still bills (Stripe retries it): a new one would be a second.
  const onHold = rows.find((r) => r.provider === 'card' && r.status === 'past_due' && renews(r));
  if (onHold !== undefined && (req.provider === 'card' || longest === undefined)) {
    return (
      'Your card subscription is on hold: a payment failed, and Stripe retries it. Cancel it first ' +
      '(plan cancel) to start over, so that it stops charging beside a new one.'
    );
  }
  if (longest === undefined) return null;
  if (req.provider === 'crypto') {
    if (card === undefined || !renews(card)) return null;
    return (
      `Premium is active${until(card)} (${describe(card, now)}) and renews by itself. To pay by crypto ` +
      'instead, cancel it first (plan cancel): a crypto payment is then added after its end.'
    );
  }
  if (card !== undefined && renews(card)) {
    const what = `Premium is active${until(card)} (${describe(card, now)})`;
    return card.plan === req.planType || card.plan === null
      ? `${what} and renews by itself: there is nothing more to buy. plan shows it.`
      : `${what}. To move to ${req.planType}, switch its plan (plan switch ${req.planType}) instead of buying a second subscription.`;
  }
  if (card !== undefined) {
    return `Premium is active${until(card)} (${describe(card, now)}) and ends then, without renewing. A new card subscription can start once it has ended.`;
  }
  const crypto = active.find((r) => r.provider === 'crypto');
  return (
    `Premium is active${until(longest)} (${describe(longest, now)}). A card subscription started now ` +
    'would charge for time that is already covered: start it once this ends' +
    (crypto === undefined ? '.' : `, or add time by crypto (upgrade ${crypto.plan ?? 'monthly'} crypto).`)
  );
}

export interface CheckoutsDeps {
  repo: BillingRepo;
  /** Null for a provider this server does not offer. */
  gateways: { card: CheckoutGateway | null; crypto: CheckoutGateway | null };
  cards: CardSubscriptions;
  now: () => Date;
}

/** Opening a checkout at a payment provider, for an account whose billing record is held. */
export class Checkouts {
  constructor(private readonly deps: CheckoutsDeps) {}

  /**
   * A checkout for Premium through `gateway`. Refused while Premium is active (see
   * {@link checkoutRefusal}); any card checkout of the account still open is closed first, so that only
   * one can ever be paid; the free trial is offered only to an account that never had it, and a Stripe
   * checkout is for the account's own Stripe customer once it has one.
   */
  async open(
    userId: string,
    account: BillingAccountRow,
    req: CreatePaymentSessionRequest,
    gateway: CheckoutGateway,
  ): Promise<PaymentSession> {
    const { repo } = this.deps;
    const rows = await repo.subscriptionsOf(userId);
    const refusal = checkoutRefusal(rows, req, this.deps.now());
    if (refusal !== null) throw appError('CONFLICT', refusal);
    await this.closeOpenCardCheckouts(userId);
    const card = req.provider === 'card';
    const customer = card && gateway.gateway === 'stripe' ? await this.customerOf(account, rows) : null;
    const trial = card && account.trialUsedAt === null;
    const checkoutId = randomUUID();
    const opened = await gateway.create({
      checkoutId,
      userId,
      plan: req.planType,
      provider: req.provider,
      trial,
      customer,
    });
    await repo.insertCheckout({
      id: checkoutId,
      userId,
      plan: req.planType,
      provider: req.provider,
      gateway: gateway.gateway,
      externalId: opened.externalId,
      trial,
    });
    return { checkout_url: opened.url };
  }

  /**
   * Closes the account's card checkouts that are still open (at Stripe too), so that an abandoned one
   * cannot be paid beside the new one: two subscriptions, two trials. One Stripe says was paid already
   * is a 409: its subscription is on the way.
   */
  private async closeOpenCardCheckouts(userId: string): Promise<void> {
    for (const open of await this.deps.repo.openCheckouts(userId, 'card')) {
      const gateway = this.deps.gateways.card;
      const state =
        gateway !== null && gateway.gateway === open.gateway && gateway.expire !== undefined
          ? await gateway.expire(open.externalId)
          : 'expired';
      // The sandbox's Pay claims the same row: whichever comes first wins.
      if (state === 'expired' && (await this.deps.repo.claimCheckout(open.id, 'expired'))) continue;
      throw appError(
        'CONFLICT',
        'Your earlier card checkout was just paid: Premium starts as soon as the payment is confirmed. plan shows it.',
      );
    }
  }

  /**
   * The account's Stripe customer: the one recorded, or (for a subscription from before customers were
   * recorded) the one its card subscription bills, then recorded. Null for a first checkout.
   */
  private async customerOf(account: BillingAccountRow, rows: SubscriptionRow[]): Promise<string | null> {
    if (account.stripeCustomerId !== null) return account.stripeCustomerId;
    const old = rows.find((r) => r.provider === 'card' && r.gateway === 'stripe' && r.externalId !== null);
    if (old?.externalId === null || old?.externalId === undefined) return null;
    const customer = await this.deps.cards.customerOf(old.externalId);
    if (customer !== null) await this.deps.repo.rememberCustomer(account.userId, customer);
    return customer;
  }
}
