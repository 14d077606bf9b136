import Stripe from 'stripe';
import { PLANS, type PlanType } from '../../../src/contracts/billing';
import { appError } from '../../plugins/errors';
import { planOfInterval, refId, StripeSubscription } from './events';

/** Stripe did not answer, or refused: a 503 that says to try again, never a crash. */
function unavailable(err: unknown): never {
  void err;
  throw appError('SERVICE_UNAVAILABLE', 'Stripe is unavailable right now. Please try again later.');
}

/**
 * What the product asks of an existing card subscription at Stripe: its customer, a cancellation at the
 * end of the paid period, and a change of plan on the same subscription (never a second one).
 */
export class CardSubscriptions {
  constructor(private readonly stripe: Stripe) {}

  /** The subscription as Stripe holds it now. */
  async current(subId: string): Promise<StripeSubscription> {
    const sub = await this.stripe.subscriptions.retrieve(subId).catch(unavailable);
    return StripeSubscription.parse(sub);
  }

  /** The Stripe customer a subscription bills; null when Stripe cannot say now. */
  async customerOf(subId: string): Promise<string | null> {
    try {
      return refId(StripeSubscription.parse(await this.stripe.subscriptions.retrieve(subId)).customer);
    } catch {
      return null;
    }
  }

  /** Stops the renewal: the subscription stays until its period (or its trial) ends, then Stripe ends it. */
  async cancelAtPeriodEnd(subId: string): Promise<StripeSubscription> {
    const sub = await this.stripe.subscriptions
      .update(subId, { cancel_at_period_end: true })
      .catch(unavailable);
    return StripeSubscription.parse(sub);
  }

  /** Ends the subscription now: Stripe stops charging it (one on hold stops retrying its payment). */
  async cancelNow(subId: string): Promise<StripeSubscription> {
    const sub = await this.stripe.subscriptions.cancel(subId).catch(unavailable);
    return StripeSubscription.parse(sub);
  }

  /**
   * Moves the subscription's one item to `plan`'s price, on the same product. Stripe credits the unused
   * time of the old price and charges the new one at once (a change of interval restarts the period);
   * during a trial nothing is charged until it ends. With `error_if_incomplete` a charge that fails
   * changes nothing: that is `declined`.
   */
  async switchPlan(subId: string, plan: PlanType): Promise<StripeSubscription | 'declined'> {
    const now = await this.current(subId);
    const item = now.items?.data[0];
    const product = refId(item?.price?.product);
    if (item?.id === null || item?.id === undefined || product === null) {
      return unavailable(new Error(`subscription ${subId} has no item with a product`));
    }
    try {
      const updated = await this.stripe.subscriptions.update(subId, {
        items: [
          {
            id: item.id,
            price_data: {
              currency: 'usd',
              product,
              unit_amount: PLANS[plan].price * 100,
              recurring: { interval: plan === 'monthly' ? 'month' : 'year' },
            },
          },
        ],
        proration_behavior: 'always_invoice',
        payment_behavior: 'error_if_incomplete',
      });
      const parsed = StripeSubscription.parse(updated);
      return planOfInterval(parsed.items?.data[0]?.price?.recurring?.interval) === plan
        ? parsed
        : unavailable(new Error('Stripe answered the subscription on another plan'));
    } catch (err) {
      if (err instanceof Stripe.errors.StripeCardError) return 'declined';
      return unavailable(err);
    }
  }
}
