import {
  PLANS,
  TRIAL_DAYS,
  type PlanType,
  type SubscriptionEntry,
  type SubscriptionView,
} from '../contracts/billing';
import { formatDay, isActive } from './premium';

/**
 * What the Plan tab and `plan` say about a subscription, from the server's answer only: the plan, how it
 * is paid, when it renews or ends, a trial only when the subscription has one, and how (or whether) it
 * can be cancelled here. No promise of a thing this server does not do. A card subscription and a crypto
 * period that run side by side are both shown until one ends.
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

const perPeriod = (plan: PlanType): string => `$${PLANS[plan].price} per ${PLANS[plan].per}`;
const price = (plan: PlanType | null): string => (plan === null ? '' : ` (${perPeriod(plan)})`);

const inFuture = (iso: string | null, now: number): boolean => iso !== null && Date.parse(iso) > now;

/** The subscriptions that are active now (not one on hold). */
const activeEntries = (s: SubscriptionView): SubscriptionEntry[] =>
  s.subscriptions.filter((e) => isActive(e.status));

/** The card subscription, while it is active. */
export const activeCard = (s: SubscriptionView): SubscriptionEntry | undefined =>
  activeEntries(s).find((e) => e.provider === 'card');

/** The one subscription the account's answer speaks of, when only one runs. */
const entryOf = (s: SubscriptionView): SubscriptionEntry | undefined =>
  s.subscriptions.find((e) => e.provider === s.provider);

export function planFacts(s: SubscriptionView, now: number, card: CardGateway): PlanFact[] {
  const premium = isActive(s.status);
  const running = activeEntries(s);
  if (premium && running.length > 1) return sideBySide(s, running, now, card);
  const facts: PlanFact[] = [
    {
      label: 'Plan',
      value: !premium ? 'Free' : s.plan === null ? 'Premium' : `Premium ${s.plan}${price(s.plan)}`,
    },
    { label: 'Status', value: STATUS_TEXT[s.status] },
  ];
  if (s.provider !== null) facts.push({ label: 'Paid by', value: PROVIDER_TEXT[s.provider](card) });
  const end = formatDay(s.current_period_end);
  const trialEnd = formatDay(s.trial_end);
  if (premium && s.provider === 'card' && inFuture(s.trial_end, now) && trialEnd !== null) {
    const first =
      card === 'sandbox'
        ? 'the sandbox charges nothing after it'
        : `the first charge${price(s.plan)} is due then`;
    facts.push({ label: 'Free trial', value: `until ${trialEnd}: $0 today; ${first}` });
  }
  const cancelled = premium && entryOf(s)?.cancel_at_period_end === true;
  if (cancelled) facts.push({ label: 'Renewal', value: 'cancelled: nothing more is charged' });
  if (end !== null) {
    facts.push({
      label: premium ? (cancelled ? 'Ends on' : endLabel(s.provider, card)) : 'Ended',
      value: end,
    });
  }
  // Not advertised again to an account that had it: a new card checkout starts without it.
  if (!premium && s.trial_used) facts.push({ label: 'Free trial', value: 'used (one per account)' });
  return facts;
}

/** A card subscription and a crypto period (or a grant) at once: one line each, and the end of it all. */
function sideBySide(
  s: SubscriptionView,
  running: SubscriptionEntry[],
  now: number,
  card: CardGateway,
): PlanFact[] {
  const facts: PlanFact[] = [
    { label: 'Plan', value: `Premium, paid ${running.length} ways` },
    { label: 'Status', value: STATUS_TEXT[s.status] },
  ];
  for (const e of running) facts.push({ label: ENTRY_LABEL[e.provider], value: entryLine(e, now, card) });
  const end = formatDay(s.current_period_end);
  if (end !== null) facts.push({ label: 'Premium until', value: `at least ${end}` });
  return facts;
}

const ENTRY_LABEL: Record<SubscriptionEntry['provider'], string> = {
  card: 'By card',
  crypto: 'By crypto',
  admin: 'Granted',
};

/** `monthly ($179 per month), free trial until 3 Dec 2026, renews on 3 Dec 2026`. */
function entryLine(e: SubscriptionEntry, now: number, card: CardGateway): string {
  const parts: string[] = [];
  if (e.plan !== null) parts.push(`${e.plan}${price(e.plan)}`);
  else if (e.provider === 'admin') parts.push('by an administrator');
  const trialEnd = formatDay(e.trial_end);
  if (e.provider === 'card' && inFuture(e.trial_end, now) && trialEnd !== null) {
    parts.push(`free trial until ${trialEnd}`);
  }
  const end = formatDay(e.current_period_end);
  if (end !== null) {
    const renewsHere = e.provider === 'card' && card !== 'sandbox' && !e.cancel_at_period_end;
    parts.push(`${e.cancel_at_period_end ? 'cancelled, ends' : renewsHere ? 'renews' : 'ends'} on ${end}`);
  }
  return parts.join(', ');
}

function endLabel(provider: SubscriptionView['provider'], card: CardGateway): string {
  // A card subscription renews with Stripe; only the offline sandbox's does not.
  if (provider === 'card' && card !== 'sandbox') return 'Renews on';
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

/** A card subscription on hold (a payment failed): not Premium, but Stripe still retries its charge. */
const onHold = (s: SubscriptionView, card: CardGateway): SubscriptionEntry | undefined =>
  card === 'sandbox'
    ? undefined
    : s.subscriptions.find((e) => e.provider === 'card' && e.status === 'past_due');

/**
 * How a plan is cancelled here: at the end of its period, at Stripe (`schedule`), now when it is on
 * hold (`stop`: Stripe stops retrying the charge), by ending it now in the offline sandbox (`end`), or
 * not at all (`null`: a crypto period or a grant just ends, a card subscription already cancelled ends
 * by itself, nothing is active).
 */
export function cancelAction(s: SubscriptionView, card: CardGateway): 'schedule' | 'stop' | 'end' | null {
  if (!isActive(s.status)) return onHold(s, card) === undefined ? null : 'stop';
  if (card === 'sandbox') return activeEntries(s).some((e) => e.provider !== 'admin') ? 'end' : null;
  const cardSub = activeCard(s);
  return cardSub !== undefined && !cardSub.cancel_at_period_end ? 'schedule' : null;
}

/** What `plan cancel` and the Plan tab say about cancelling: what happens to the plan, and how. */
export function cancelAdvice(s: SubscriptionView, card: CardGateway): string {
  if (!isActive(s.status)) {
    return onHold(s, card) === undefined
      ? 'You have no Premium subscription to cancel.'
      : 'Your card subscription is on hold: a payment failed, and Stripe retries it. plan cancel cancels it now: nothing more is charged.';
  }
  const end = formatDay(s.current_period_end);
  const until = end === null ? '' : ` on ${end}`;
  if (card === 'sandbox' && cancelAction(s, card) === 'end')
    return `This server's payments are the offline sandbox: nothing is charged and nothing renews; Premium ends${until}, or now with plan cancel.`;
  const cardSub = activeCard(s);
  const crypto = activeEntries(s).find((e) => e.provider === 'crypto');
  const cryptoEnd = formatDay(crypto?.current_period_end ?? null);
  const cryptoToo =
    crypto === undefined
      ? ''
      : ` Your crypto period runs out by itself${cryptoEnd === null ? '' : ` on ${cryptoEnd}`}.`;
  if (cardSub !== undefined) {
    const cardEnd = formatDay(cardSub.current_period_end);
    const on = cardEnd === null ? '' : ` on ${cardEnd}`;
    if (cardSub.cancel_at_period_end)
      return `Your card subscription is cancelled: it ends${on} and nothing more is charged.${cryptoToo}`;
    return `Your card subscription with Stripe renews${on}. plan cancel (or Cancel renewal here) cancels it at the end of the period: Premium stays until then.${cryptoToo}`;
  }
  if (s.provider === 'admin')
    return `Premium was granted by an administrator and ends${until}; nothing is charged. Ask an administrator to end it sooner.`;
  const cryptoUntil = cryptoEnd === null ? until : ` on ${cryptoEnd}`;
  return `A crypto payment covers one period and does not renew: Premium ends${cryptoUntil}, with nothing more to pay.`;
}

/**
 * The plan the card subscription can switch to (the other one), or null: only an active card
 * subscription that still renews switches; a crypto period's next payment chooses its plan.
 */
export function switchTarget(s: SubscriptionView): PlanType | null {
  const cardSub = activeCard(s);
  if (cardSub === undefined || cardSub.cancel_at_period_end || cardSub.plan === null) return null;
  return cardSub.plan === 'monthly' ? 'yearly' : 'monthly';
}

/** What switching the card subscription to `plan` costs, asked before it is done. */
export function switchQuestion(
  s: SubscriptionView,
  plan: PlanType,
  now: number,
  card: CardGateway,
): { question: string; details: string[] } {
  const cardSub = activeCard(s);
  const trialEnd = formatDay(cardSub?.trial_end ?? null);
  const question = `Switch your card subscription to ${plan} (${perPeriod(plan)})?`;
  if (card === 'sandbox') return { question, details: ['The sandbox charges nothing.'] };
  if (cardSub !== undefined && inFuture(cardSub.trial_end, now) && trialEnd !== null) {
    return {
      question,
      details: [`The free trial still ends on ${trialEnd}; the first charge is then $${PLANS[plan].price}.`],
    };
  }
  const old = cardSub?.plan ?? (plan === 'monthly' ? 'yearly' : 'monthly');
  return {
    question,
    details: [
      `Stripe charges the ${plan} plan now, less a credit for the unused part of the ${old} plan.`,
      `It then renews every ${PLANS[plan].per}.`,
    ],
  };
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
