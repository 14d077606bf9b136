import { randomUUID } from 'node:crypto';
import type Stripe from 'stripe';
import {
  PLANS,
  type CancelAnswer,
  type ChangePlanAnswer,
  type CreatePaymentSessionRequest,
  type PaymentSession,
  type PlanType,
  type SubscriptionEntry,
  type SubscriptionStatus,
  type SubscriptionView,
} from '../../../src/contracts/billing';
import { appError } from '../../plugins/errors';
import {
  currentRows,
  isPremium,
  isPremiumAny,
  leadingRow,
  PLAN_LIMITS,
  renews,
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
import { cardPatchOf } from './events';
import { ProviderEvents, type WebhookResult } from './provider-events';
import { day } from './stripe-changes';

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

const perPeriod = (plan: PlanType) => `$${PLANS[plan].price} per ${PLANS[plan].per}`;

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

const until = (row: SubscriptionRow): string =>
  row.currentPeriodEnd === null ? '' : ` until ${day(row.currentPeriodEnd)}`;

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

/** Subscriptions: checkouts, the provider events that change them, and the plan every gate reads. */
export class BillingService implements PlanReader {
  private readonly repo: BillingRepo;
  private readonly now: () => Date;
  /** Applies the providers' webhook events. */
  private readonly events: ProviderEvents;
  private readonly cards: CardSubscriptions;

  constructor(private readonly deps: BillingDeps) {
    this.repo = deps.repo;
    this.now = deps.now ?? (() => new Date());
    this.cards = new CardSubscriptions(deps.stripe);
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
   * A checkout for Premium. Refused while Premium is active (see {@link checkoutRefusal}); any card
   * checkout of the account still open is closed first, so that only one can ever be paid; the free
   * trial is offered only to an account that never had it, and a Stripe checkout is for the account's
   * own Stripe customer once it has one.
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
    return this.holding(userId, async (account) => {
      const rows = await this.repo.subscriptionsOf(userId);
      const refusal = checkoutRefusal(rows, req, this.now());
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
      await this.repo.insertCheckout({
        id: checkoutId,
        userId,
        plan: req.planType,
        provider: req.provider,
        gateway: gateway.gateway,
        externalId: opened.externalId,
        trial,
      });
      return { checkout_url: opened.url };
    });
  }

  /**
   * Closes the account's card checkouts that are still open (at Stripe too), so that an abandoned one
   * cannot be paid beside the new one: two subscriptions, two trials. One Stripe says was paid already
   * is a 409: its subscription is on the way.
   */
  private async closeOpenCardCheckouts(userId: string): Promise<void> {
    for (const open of await this.repo.openCheckouts(userId, 'card')) {
      const gateway = this.deps.gateways.card;
      const state =
        gateway !== null && gateway.gateway === open.gateway && gateway.expire !== undefined
          ? await gateway.expire(open.externalId)
          : 'expired';
      // The sandbox's Pay claims the same row: whichever comes first wins.
      if (state === 'expired' && (await this.repo.claimCheckout(open.id, 'expired'))) continue;
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
    const customer = await this.cards.customerOf(old.externalId);
    if (customer !== null) await this.repo.rememberCustomer(account.userId, customer);
    return customer;
  }

  /**
   * Cancelling: a Stripe card subscription is cancelled at the end of its period (Premium stays until
   * then, nothing more is charged), or now when it is on hold (a payment failed: Premium is off, but
   * Stripe would retry the charge); the sandbox's end now. A crypto period or a grant has nothing to
   * cancel (409, saying when it runs out).
   */
  async cancel(userId: string): Promise<CancelAnswer> {
    const now = this.now();
    const current = currentRows(await this.repo.subscriptionsOf(userId), now);
    const active = current.filter((r) => isPremium(r, now));
    const onHold = current.find((r) => r.provider === 'card' && r.status === 'past_due');
    if (active.length === 0 && onHold?.gateway === 'stripe' && onHold.externalId !== null) {
      // Not Premium, but still billing: it ends now, and Stripe stops retrying its payment.
      const patch = cardPatchOf(await this.cards.cancelNow(onHold.externalId), true);
      await this.repo.updateSubscriptionByExternalId('card', onHold.externalId, patch);
      return {
        action: 'ended',
        message:
          'Your card subscription, on hold since a payment failed, is cancelled: nothing more is charged.',
      };
    }
    if (active.length === 0) throw appError('CONFLICT', 'You have no Premium subscription to cancel.');
    const sandbox = active.filter((r) => r.gateway === 'sandbox');
    const others = (left: SubscriptionRow[]) =>
      left
        .map((r) =>
          r.provider === 'crypto'
            ? ` Your crypto period runs out by itself on ${day(r.currentPeriodEnd ?? now)}.`
            : r.provider === 'admin'
              ? ` Premium granted by an administrator goes on until ${day(r.currentPeriodEnd ?? now)}.`
              : '',
        )
        .join('');
    if (sandbox.length > 0) {
      for (const row of sandbox) {
        await this.repo.upsertSubscription(userId, row.provider, {
          status: 'canceled',
          currentPeriodEnd: now,
        });
      }
      await this.deps.activity?.record(userId, {
        kind: 'plan_changed',
        detail: { plan: 'Premium cancelled in the sandbox: it ended now' },
      });
      return {
        action: 'ended',
        message:
          'Premium cancelled: it ended now. The sandbox charged nothing and renews nothing.' +
          others(active.filter((r) => r.gateway !== 'sandbox')),
      };
    }
    const card = active.find((r) => r.provider === 'card');
    const rest = others(active.filter((r) => r.provider !== 'card'));
    if (card?.gateway === 'stripe' && card.externalId !== null) {
      let row = card;
      if (!card.cancelAtPeriodEnd) {
        const patch = cardPatchOf(await this.cards.cancelAtPeriodEnd(card.externalId), false);
        await this.repo.updateSubscriptionByExternalId('card', card.externalId, patch);
        row = { ...card, ...patch };
      }
      const end = day(row.currentPeriodEnd ?? now);
      const trial = row.trialEnd !== null && row.trialEnd > now;
      const name = row.plan === null ? 'Premium' : `Premium ${row.plan}`;
      return {
        action: 'scheduled',
        message:
          (trial
            ? `Your card subscription is cancelled: the free trial runs until ${end} and nothing is charged.`
            : `Your card subscription is cancelled: ${name} stays until ${end} and nothing more is charged.`) +
          rest,
      };
    }
    const [first] = active;
    throw appError(
      'CONFLICT',
      first?.provider === 'admin'
        ? 'Premium was granted by an administrator: nothing renews and there is nothing to cancel.'
        : `A crypto payment covers one period and does not renew: there is nothing to cancel. It runs out by itself on ${day(first?.currentPeriodEnd ?? now)}.`,
    );
  }

  /**
   * Moves the card subscription to the other plan: with Stripe, the same subscription's price changes
   * (Stripe prorates and charges, or during the trial charges nothing until it ends); never a second
   * checkout. A crypto period has no plan to switch: the next payment chooses one.
   */
  async changePlan(userId: string, planType: PlanType): Promise<ChangePlanAnswer> {
    return this.holding(userId, async () => {
      const now = this.now();
      const rows = await this.repo.subscriptionsOf(userId);
      const card = rows.find((r) => r.provider === 'card' && isPremium(r, now));
      if (card === undefined) {
        const crypto = rows.find((r) => r.provider === 'crypto' && isPremium(r, now));
        throw appError(
          'CONFLICT',
          crypto === undefined
            ? `You have no card subscription to switch. upgrade ${planType} card starts one.`
            : `A crypto period is paid once and has no plan to switch: pay the next one as ${planType} (upgrade ${planType} crypto) and it is added after this one${until(crypto)}.`,
        );
      }
      if (card.plan === planType)
        throw appError('CONFLICT', `Your card subscription is ${planType} already.`);
      if (card.cancelAtPeriodEnd) {
        throw appError(
          'CONFLICT',
          `Your card subscription is cancelled and ends${until(card).replace(' until', ' on')}: there is nothing to switch. A new one can start once it has ended.`,
        );
      }
      const old = card.plan ?? 'monthly';
      let row: SubscriptionRow;
      let message: string;
      if (card.gateway === 'stripe' && card.externalId !== null) {
        const switched = await this.cards.switchPlan(card.externalId, planType);
        if (switched === 'declined') {
          throw appError(
            'CONFLICT',
            `Stripe could not take the payment for the ${planType} plan: your subscription stays ${old}, and nothing was charged.`,
          );
        }
        const patch = cardPatchOf(switched, false);
        await this.repo.updateSubscriptionByExternalId('card', card.externalId, patch);
        row = { ...card, ...patch };
        const end = day(row.currentPeriodEnd ?? now);
        message =
          row.trialEnd !== null && row.trialEnd > now
            ? `Your card subscription is now ${planType} (${perPeriod(planType)}). The free trial still ends on ${end}; the first charge is $${PLANS[planType].price} then.`
            : `Your card subscription is now ${planType} (${perPeriod(planType)}): Stripe credited the unused part of the ${old} plan against the first ${planType} charge. It renews on ${end}.`;
      } else {
        await this.repo.upsertSubscription(userId, 'card', { plan: planType });
        row = { ...card, plan: planType };
        message = `Your card subscription is now ${planType} (${perPeriod(planType)}). The sandbox charges nothing.`;
      }
      await this.deps.activity?.record(userId, {
        kind: 'plan_changed',
        detail: { plan: `Premium ${old} switched to ${planType} (card)` },
      });
      const after = rows.map((r) => (r.provider === 'card' ? row : r));
      return { message, subscription: this.view(after, await this.repo.account(userId)) };
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
