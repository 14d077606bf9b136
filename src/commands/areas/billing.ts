import { z } from 'zod';
import {
  PaymentProvider,
  PlanType,
  PLANS,
  PREMIUM_FEATURES,
  TRIAL_DAYS,
  type SubscriptionView,
} from '../../contracts/billing';
import { cancelPlan, loadSubscription, startCheckout } from '../../services/billing';
import { cancelAction, cancelAdvice, cardGatewayOf, planFacts } from '../../services/planFacts';
import { formatDay, isActive, rememberStatus } from '../../services/premium';
import { failure, info, link, muted, success, type OutputLine } from '../../services/terminal/output';
import { defineCommand } from '../types';

const AREA = 'premium';

/** `active, monthly by card, until 23 Dec 2026 (trial until 30 Nov 2026)`. */
export function describeSubscription(s: SubscriptionView): string {
  const how =
    s.plan === null
      ? ''
      : `, ${s.plan}${s.provider === null ? '' : ` by ${s.provider === 'admin' ? 'grant' : s.provider}`}`;
  const end = formatDay(s.current_period_end);
  const trial = formatDay(s.trial_end);
  return `${s.status}${how}${end === null ? '' : `, until ${end}`}${trial === null ? '' : ` (trial until ${trial})`}`;
}

const planLines = (): OutputLine[] => [
  info(`Premium: ${PREMIUM_FEATURES.join(', ').toLowerCase()}.`),
  info(`  monthly  $${PLANS.monthly.price} per ${PLANS.monthly.per}`),
  info(`  yearly   $${PLANS.yearly.price} per ${PLANS.yearly.per}  ${PLANS.yearly.badge}`),
  // The trial is the card subscription's; a crypto payment pays the period at once.
  muted(
    `By card: ${TRIAL_DAYS}-day free trial, then renews. By crypto: the period paid at once, no trial. upgrade monthly|yearly [card|crypto]`,
  ),
];

export const plan = defineCommand({
  name: 'plan',
  area: AREA,
  summary: 'Show your subscription: status and the end of the current period.',
  usage: 'plan',
  examples: ['plan'],
  args: z.object({}),
  loginRequired: true,
  async run(ctx) {
    const loaded = await loadSubscription(ctx.api.main);
    if (!loaded.ok) return [failure(loaded.message)];
    const s = loaded.value;
    rememberStatus(ctx.stores.session, s);
    const card = cardGatewayOf(ctx.stores.connection.health.peek()?.payments);
    const lines: OutputLine[] = planFacts(s, ctx.stores.feed.now(), card).map((f) =>
      info(`${`${f.label}:`.padEnd(12)}${f.value}`),
    );
    if (isActive(s.status)) {
      lines.push(muted('Unlimited auto-trading rules, all news sources, priority support.'));
      lines.push(muted(cancelAdvice(s, card)));
    } else
      lines.push(muted('Free: 3 active auto-trading rules and the default news sources.'), ...planLines());
    return { lines, data: s };
  },
});

export const planCancel = defineCommand({
  name: 'plan cancel',
  area: AREA,
  summary:
    'Cancel Premium: with Stripe, opens its customer portal; in the offline sandbox, ends it now (asks first). Otherwise says how the plan ends.',
  usage: 'plan cancel',
  examples: ['plan cancel'],
  args: z.object({}),
  loginRequired: true,
  async run(ctx) {
    const loaded = await loadSubscription(ctx.api.main);
    if (!loaded.ok) return [failure(loaded.message)];
    rememberStatus(ctx.stores.session, loaded.value);
    const card = cardGatewayOf(ctx.stores.connection.health.peek()?.payments);
    const action = cancelAction(loaded.value, card);
    // A crypto period or a grant has nothing to cancel: say how it ends, and send nothing.
    if (action === null) return { lines: [info(cancelAdvice(loaded.value, card))], data: loaded.value };
    if (action === 'end') {
      const answer = await ctx.stores.terminal.ask({
        label: 'End Premium now? The sandbox charged nothing and nothing renews. [y/N] ',
        secret: false,
      });
      if (answer === null || !/^y(es)?$/i.test(answer.trim())) return [muted('Nothing was cancelled.')];
    }
    const cancelled = await cancelPlan(ctx.api.main);
    if (!cancelled.ok) return [failure(cancelled.message)];
    const { url, message } = cancelled.value;
    if (url === null) {
      const after = await loadSubscription(ctx.api.main);
      if (after.ok) rememberStatus(ctx.stores.session, after.value);
      return { lines: [success(message)], data: cancelled.value };
    }
    // In the browser the page leaves for Stripe's portal; elsewhere the address is the answer.
    const leaving = ctx.stores.premium.redirect(url);
    return {
      lines: [success(leaving ? "Opening Stripe's customer portal…" : message), link(url)],
      data: cancelled.value,
    };
  },
});

export const upgrade = defineCommand({
  name: 'upgrade',
  area: AREA,
  summary: `Buy Premium: monthly $${PLANS.monthly.price} or yearly $${PLANS.yearly.price} (${PLANS.yearly.badge}), ${TRIAL_DAYS}-day free trial by card. Alone, opens the Upgrade to Premium window.`,
  usage: 'upgrade [plan] [provider]',
  examples: ['upgrade', 'upgrade monthly', 'upgrade yearly crypto'],
  args: z.object({
    plan: PlanType.optional().describe('monthly or yearly'),
    provider: PaymentProvider.default('card').describe('card or crypto (default card)'),
  }),
  complete: { plan: () => PlanType.options, provider: () => PaymentProvider.options },
  loginRequired: true,
  async run(ctx, { plan: planType, provider }) {
    // A Premium account is told so instead of being offered to pay again.
    if (isActive(ctx.stores.session.user.peek()?.subscriptionStatus)) {
      const loaded = await loadSubscription(ctx.api.main);
      if (loaded.ok && isActive(loaded.value.status)) {
        return {
          lines: [
            success(`You have Premium already (${describeSubscription(loaded.value)}). plan shows it.`),
          ],
          data: loaded.value,
        };
      }
    }
    if (planType === undefined) {
      ctx.stores.premium.openUpgrade();
      return { lines: planLines(), data: { plans: PLANS, trial_days: TRIAL_DAYS } };
    }
    const started = await startCheckout(ctx.api.main, planType, provider);
    if (!started.ok) return [failure(started.message)];
    const url = started.value;
    // In the browser the page leaves for the checkout; elsewhere the address is the answer.
    const leaving = ctx.stores.premium.redirect(url);
    return {
      lines: [leaving ? success('Opening the checkout…') : success('Checkout ready. Pay at:'), link(url)],
      data: { checkout_url: url },
    };
  },
});

export default [plan, planCancel, upgrade];
