import { z } from 'zod';

/** The parts of provider events the billing service reads; everything else in them is ignored. */

const metadata = z.record(z.string(), z.string()).nullish();

export const StripeEvent = z.object({
  id: z.string().min(1),
  type: z.string(),
  data: z.object({
    object: z.record(z.string(), z.unknown()),
    /** On `*.updated` events: the attributes that changed, with their values before the change. */
    previous_attributes: z.record(z.string(), z.unknown()).nullish(),
  }),
});
export type StripeEvent = z.infer<typeof StripeEvent>;

/** The changed attributes of a subscription the service tells apart. */
export const StripePreviousAttributes = z.object({ cancel_at_period_end: z.boolean().nullish() });

/** An id, or the object it names when Stripe expanded it. */
const ref = z.union([z.string(), z.object({ id: z.string() })]).nullish();
export const refId = (value: z.infer<typeof ref>): string | null =>
  value === null || value === undefined ? null : typeof value === 'string' ? value : value.id;

export const StripeCheckoutSession = z.object({
  id: z.string(),
  client_reference_id: z.string().nullish(),
  subscription: z.string().nullish(),
  /** The Stripe customer the checkout was paid as (the account's own, or the one Stripe made). */
  customer: ref,
  metadata,
});

const epoch = z.number().int().nullish();

const StripePrice = z.object({
  product: ref,
  unit_amount: z.number().int().nullish(),
  recurring: z.object({ interval: z.string() }).nullish(),
});

export const StripeSubscription = z.object({
  id: z.string(),
  status: z.string(),
  customer: ref,
  current_period_end: epoch,
  trial_end: epoch,
  /** Canceled by its owner: it stays active until the period ends, then Stripe deletes it. */
  cancel_at_period_end: z.boolean().nullish(),
  items: z
    .object({
      data: z.array(
        z.object({ id: z.string().nullish(), current_period_end: epoch, price: StripePrice.nullish() }),
      ),
    })
    .nullish(),
});
export type StripeSubscription = z.infer<typeof StripeSubscription>;

export const StripeInvoice = z.object({
  subscription: z.string().nullish(),
  parent: z
    .object({ subscription_details: z.object({ subscription: z.string().nullish() }).nullish() })
    .nullish(),
});

export const BtcpayEvent = z.object({
  deliveryId: z.string().min(1),
  originalDeliveryId: z.string().nullish(),
  type: z.string(),
  invoiceId: z.string().nullish(),
});

/** Stripe's subscription states, in the two words the product shows plus the reasons it is not active. */
export function fromStripeStatus(status: string): 'active' | 'past_due' | 'canceled' | 'expired' {
  if (status === 'active' || status === 'trialing') return 'active';
  if (status === 'past_due' || status === 'unpaid' || status === 'incomplete' || status === 'paused')
    return 'past_due';
  if (status === 'incomplete_expired') return 'expired';
  return 'canceled';
}

export const fromEpoch = (s: number | null | undefined): Date | null =>
  s === null || s === undefined ? null : new Date(s * 1000);

/** The plan a Stripe price's billing interval is; undefined for one the product does not sell. */
export function planOfInterval(interval: string | null | undefined): 'monthly' | 'yearly' | undefined {
  if (interval === 'month') return 'monthly';
  if (interval === 'year') return 'yearly';
  return undefined;
}

/**
 * What a Stripe subscription says of the card row: its status, the end of its period and trial, whether
 * it is cancelled at the period's end, and its plan (by its price's interval). Only what it says.
 */
export function cardPatchOf(sub: StripeSubscription, deleted: boolean) {
  const end = sub.current_period_end ?? sub.items?.data[0]?.current_period_end;
  const plan = planOfInterval(sub.items?.data[0]?.price?.recurring?.interval);
  return {
    status: deleted ? ('canceled' as const) : fromStripeStatus(sub.status),
    ...(end !== undefined && end !== null ? { currentPeriodEnd: fromEpoch(end) } : {}),
    ...(sub.trial_end !== undefined ? { trialEnd: fromEpoch(sub.trial_end) } : {}),
    ...(sub.cancel_at_period_end !== undefined && sub.cancel_at_period_end !== null
      ? { cancelAtPeriodEnd: sub.cancel_at_period_end }
      : {}),
    ...(plan === undefined ? {} : { plan }),
  };
}
