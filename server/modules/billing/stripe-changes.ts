import type { SubscriptionRow } from './billing.repo';

export const day = (d: Date): string => d.toISOString().slice(0, 10);

/** ` until 2025-07-01`: when a subscription's period ends, as the tail of a sentence (nothing when open). */
export const until = (row: SubscriptionRow): string =>
  row.currentPeriodEnd === null ? '' : ` until ${day(row.currentPeriodEnd)}`;

export const premium = (row: SubscriptionRow): string =>
  row.plan === null ? 'Premium' : `Premium ${row.plan}`;

/**
 * What a Stripe subscription update changed, as activity lines: a status that moved (canceled, on hold,
 * active again), a paid period that moved on (a renewal), a plan switched, and a cancellation at the
 * period's end set or withdrawn (`cancelAtEnd`, only when Stripe says that attribute changed). Nothing when nothing did.
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
  // A switch made here is written when it is made; one made at Stripe itself is told here.
  if (before.plan !== null && after.plan !== null && after.plan !== before.plan) {
    lines.push(`${name} switched to ${after.plan} (card)`);
  }
  if (cancelAtEnd === true) {
    const end = after.currentPeriodEnd;
    lines.push(`${name} canceled: it ends ${end === null ? 'with the period' : `on ${day(end)}`}, then Free`);
  } else if (cancelAtEnd === false) lines.push(`${name} continues: the cancellation was withdrawn`);
  return lines;
}
