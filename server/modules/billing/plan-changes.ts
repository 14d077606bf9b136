import { PLANS, type CancelAnswer, type PlanType } from '../../../src/contracts/billing';
import { appError } from '../../plugins/errors';
import type { ActivityService } from '../activity/activity.service';
import type { BillingRepo, SubscriptionRow } from './billing.repo';
import type { CardSubscriptions } from './card-subscriptions';
import { cardPatchOf } from './events';
import { currentRows, isPremium } from './plans';
import { day, until } from './stripe-changes';

export interface PlanChangesDeps {
  repo: BillingRepo;
  cards: CardSubscriptions;
  now: () => Date;
  /** The account activity log: a plan that ends or is switched is a line in it. */
  activity?: Pick<ActivityService, 'record'>;
}

/** What a card plan switch stored: the answer's text and the account's subscriptions after it. */
export interface SwitchedPlan {
  message: string;
  rows: SubscriptionRow[];
}

const perPeriod = (plan: PlanType) => `$${PLANS[plan].price} per ${PLANS[plan].per}`;

/** What an account may change of a subscription it has: cancel it, or switch its card plan. */
export class PlanChanges {
  constructor(private readonly deps: PlanChangesDeps) {}

  /**
   * Cancelling: a Stripe card subscription is cancelled at the end of its period (Premium stays until
   * then, nothing more is charged), or now when it is on hold (a payment failed: Premium is off, but
   * Stripe would retry the charge); the sandbox's end now. A crypto period or a grant has nothing to
   * cancel (409, saying when it runs out).
   */
  async cancel(userId: string): Promise<CancelAnswer> {
    const { repo, cards } = this.deps;
    const now = this.deps.now();
    const current = currentRows(await repo.subscriptionsOf(userId), now);
    const active = current.filter((r) => isPremium(r, now));
    const onHold = current.find((r) => r.provider === 'card' && r.status === 'past_due');
    if (active.length === 0 && onHold?.gateway === 'stripe' && onHold.externalId !== null) {
      // Not Premium, but still billing: it ends now, and Stripe stops retrying its payment.
      const patch = cardPatchOf(await cards.cancelNow(onHold.externalId), true);
      await repo.updateSubscriptionByExternalId('card', onHold.externalId, patch);
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
        await repo.upsertSubscription(userId, row.provider, {
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
        const patch = cardPatchOf(await cards.cancelAtPeriodEnd(card.externalId), false);
        await repo.updateSubscriptionByExternalId('card', card.externalId, patch);
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
   * checkout. A crypto period has no plan to switch: the next payment chooses one. Run while the
   * account's billing record is held.
   */
  async switchCard(userId: string, planType: PlanType): Promise<SwitchedPlan> {
    const { repo } = this.deps;
    const now = this.deps.now();
    const rows = await repo.subscriptionsOf(userId);
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
    if (card.plan === planType) throw appError('CONFLICT', `Your card subscription is ${planType} already.`);
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
      const switched = await this.deps.cards.switchPlan(card.externalId, planType);
      if (switched === 'declined') {
        throw appError(
          'CONFLICT',
          `Stripe could not take the payment for the ${planType} plan: your subscription stays ${old}, and nothing was charged.`,
        );
      }
      const patch = cardPatchOf(switched, false);
      await repo.updateSubscriptionByExternalId('card', card.externalId, patch);
      row = { ...card, ...patch };
      const end = day(row.currentPeriodEnd ?? now);
      message =
        row.trialEnd !== null && row.trialEnd > now
          ? `Your card subscription is now ${planType} (${perPeriod(planType)}). The free trial still ends on ${end}; the first charge is $${PLANS[planType].price} then.`
          : `Your card subscription is now ${planType} (${perPeriod(planType)}): Stripe credited the unused part of the ${old} plan against the first ${planType} charge. It renews on ${end}.`;
    } else {
      await repo.upsertSubscription(userId, 'card', { plan: planType });
      row = { ...card, plan: planType };
      message = `Your card subscription is now ${planType} (${perPeriod(planType)}). The sandbox charges nothing.`;
    }
    await this.deps.activity?.record(userId, {
      kind: 'plan_changed',
      detail: { plan: `Premium ${old} switched to ${planType} (card)` },
    });
    return { message, rows: rows.map((r) => (r.provider === 'card' ? row : r)) };
  }
}
