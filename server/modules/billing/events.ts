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

export const StripeCheckoutSession = z.object({
  id: z.string(),
  client_reference_id: z.string().nullish(),
  subscription: z.string().nullish(),
  metadata,
});

const epoch = z.number().int().nullish();

export const StripeSubscription = z.object({
  id: z.string(),
  status: z.string(),
  current_period_end: epoch,
  trial_end: epoch,
  /** Canceled by its owner: it stays active until the period ends, then Stripe deletes it. */
  cancel_at_period_end: z.boolean().nullish(),
  items: z.object({ data: z.array(z.object({ current_period_end: epoch })) }).nullish(),
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
