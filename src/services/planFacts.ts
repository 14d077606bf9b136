import { PLANS, TRIAL_DAYS, type SubscriptionView } from '../contracts/billing';
import { formatDay, isActive } from './premium';

/**
 * What the Plan tab and `plan` say about a subscription, from the server's answer only: the plan, how it
 * is paid, when it renews or ends, a trial only when the subscription has one, and how (or whether) it
 * can be cancelled here. No promise of a thing this server does not do.
 */

export interface PlanFact {
  label: string;
  value: string;
}

/** `stripe` or `sandbox-card` (from the health answer's `payments`): who takes card payments here. */
export type CardGateway = 'stripe' | 'sandbox' | null;

export function cardGatewayOf(payments: readonly string[] | null | undefined): CardGateway {
  if (payments?.includes('stripe') === true) return 'stripe';
  if (payments?.includes('sandbox-card') === true) return 'sandbox';
  return null;
}

const price = (s: SubscriptionView): string =>
  s.plan === null ? '' : ` ($${PLANS[s.plan].price} per ${PLANS[s.plan].per})`;

const inFuture = (iso: string | null, now: number): boolean => iso !== null && Date.parse(iso) > now;

export function planFacts(s: SubscriptionView, now: number, card: CardGateway): PlanFact[] {
  const premium = isActive(s.status);
  const facts: PlanFact[] = [
    {
      label: 'Plan',
      value: !premium ? 'Free' : s.plan === null ? 'Premium' : `Premium ${s.plan}${price(s)}`,
    },
    { label: 'Status', value: STATUS_TEXT[s.status] },
  ];
  if (s.provider !== null) facts.push({ label: 'Paid by', value: PROVIDER_TEXT[s.provider](card) });
  const end = formatDay(s.current_period_end);
  const trialEnd = formatDay(s.trial_end);
  if (premium && s.provider === 'card' && inFuture(s.trial_end, now) && trialEnd !== null) {
    const first =
      card === 'sandbox' ? 'the sandbox charges nothing after it' : `the first charge${price(s)} is due then`;
    facts.push({ label: 'Free trial', value: `until ${trialEnd}: $0 today; ${first}` });
  }
  if (end !== null) facts.push({ label: premium ? endLabel(s, card) : 'Ended', value: end });
  return facts;
}

function endLabel(s: SubscriptionView, card: CardGateway): string {
  // A card subscription renews with Stripe; only the offline sandbox's does not.
  if (s.provider === 'card' && card !== 'sandbox') return 'Renews on';
  return 'Ends on';
}

const STATUS_TEXT: Record<SubscriptionView['status'], string> = {
  active: 'Active',
  inactive: 'No subscription',
  past_due: 'On hold: a payment failed',
  canceled: 'Cancelled',
  expired: 'Expired',
};

const PROVIDER_TEXT: Record<NonNullable<SubscriptionView['provider']>, (card: CardGateway) => string> = {
  card: (card) => (card === 'sandbox' ? 'card (the offline sandbox: nothing is charged)' : 'card (Stripe)'),
  crypto: () => 'crypto (paid once for the period)',
  admin: () => 'granted by an administrator',
};

/**
 * How a plan is cancelled here: in Stripe's customer portal (`portal`), by ending it now in the offline
 * sandbox (`end`), or not at all (`null`: a crypto period or a grant just ends; nothing is active).
 */
export function cancelAction(s: SubscriptionView, card: CardGateway): 'portal' | 'end' | null {
  if (!isActive(s.status) || s.provider === 'admin') return null;
  if (card === 'sandbox') return 'end';
  return s.provider === 'card' ? 'portal' : null;
}

/** What `plan cancel` and the Plan tab say about cancelling: what happens to the plan, and how. */
export function cancelAdvice(s: SubscriptionView, card: CardGateway): string {
  const end = formatDay(s.current_period_end);
  const until = end === null ? '' : ` on ${end}`;
  if (!isActive(s.status)) return 'You have no Premium subscription to cancel.';
  if (s.provider === 'admin')
    return `Premium was granted by an administrator and ends${until}; nothing is charged. Ask an administrator to end it sooner.`;
  if (card === 'sandbox')
    return `This server's payments are the offline sandbox: nothing is charged and nothing renews; Premium ends${until}, or now with plan cancel.`;
  if (s.provider === 'crypto')
    return `A crypto payment covers one period and does not renew: Premium ends${until}, with nothing more to pay.`;
  return `Your card subscription with Stripe renews${until}. Cancel it in Stripe's customer portal: plan cancel, or Cancel in Stripe on the Plan tab.`;
}

/**
 * The payment success page's line after a card checkout: its trial started, $0 today, and when the first
 * charge is (none in the sandbox). Null when the subscription has no trial running.
 */
export function trialStarted(s: SubscriptionView, now: number, card: CardGateway): string | null {
  if (s.provider !== 'card' || !inFuture(s.trial_end, now)) return null;
  const opening = `Your ${TRIAL_DAYS}-day free trial has started: $0 today`;
  if (card === 'sandbox') return `${opening}; this offline sandbox charges nothing afterwards.`;
  if (s.plan === null) return `${opening}.`;
  return `${opening}; the first charge is $${PLANS[s.plan].price} on ${formatDay(s.trial_end)}.`;
}
