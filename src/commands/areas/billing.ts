import { z } from 'zod';
import {
  PaymentProvider,
  PlanType,
  PLANS,
  PREMIUM_FEATURES,
  TRIAL_DAYS,
  TRIAL_TODAY,
  type SubscriptionView,
} from '../../contracts/billing';
import {
  cancelPlan,
  cancelQuestion,
  changePlan,
  loadSubscription,
  startCheckout,
} from '../../services/billing';
import {
  activeCard,
  cancelAction,
  cancelAdvice,
  cardGatewayOf,
  planFacts,
  switchQuestion,
  switchTarget,
} from '../../services/planFacts';
import { formatDay, isActive, rememberStatus } from '../../services/premium';
import { failure, info, link, muted, success, type OutputLine } from '../../services/terminal/output';
import { defineCommand, type CommandContext } from '../types';

const AREA = 'premium';

/** `active, monthly by card, until 23 Dec 2026 (trial until 30 Nov 2026)`; `active by grant, until …`. */
export function describeSubscription(s: SubscriptionView): string {
  const by = s.provider === null ? '' : ` by ${s.provider === 'admin' ? 'grant' : s.provider}`;
  const how = s.plan === null ? by : `, ${s.plan}${by}`;
  const end = formatDay(s.current_period_end);
  const trial = formatDay(s.trial_end);
  return `${s.status}${how}${end === null ? '' : `, until ${end}`}${trial === null ? '' : ` (trial until ${trial})`}`;
}

/** The plans on offer; the trial only to an account that has not had it. */
const planLines = (trialUsed: boolean): OutputLine[] => [
  info(`Premium: ${PREMIUM_FEATURES.join(', ').toLowerCase()}.`),
  info(`  monthly  $${PLANS.monthly.price} per ${PLANS.monthly.per}`),
  info(`  yearly   $${PLANS.yearly.price} per ${PLANS.yearly.per}  ${PLANS.yearly.badge}`),
  // The trial is the card subscription's; a crypto payment pays the period at once.
  muted(
    trialUsed
      ? 'By card: renews, charged from the start (your free trial was used). By crypto: the period paid at once. upgrade monthly|yearly [card|crypto]'
      : `By card: ${TRIAL_TODAY}, then renews. By crypto: the period paid at once, no trial. upgrade monthly|yearly [card|crypto]`,
  ),
];

/** The command that goes with the advice: how to cancel, or switch, here. */
function nextSteps(s: SubscriptionView): OutputLine[] {
  const target = switchTarget(s);
  return target === null ? [] : [muted(`plan switch ${target} moves the card subscription to ${target}.`)];
}

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
      info(`${`${f.label}:`.padEnd(11)} ${f.value}`),
    );
    if (isActive(s.status)) {
      lines.push(muted('Unlimited auto-trading rules, all news sources, priority support.'));
      lines.push(muted(cancelAdvice(s, card)), ...nextSteps(s));
    } else if (cancelAction(s, card) === 'stop') {
      // On hold: not Premium, but still billing. Cancelling comes before any new checkout.
      lines.push(muted(cancelAdvice(s, card)));
    } else
      lines.push(
        muted('Free: 3 active auto-trading rules and the default news sources.'),
        ...planLines(s.trial_used),
      );
    return { lines, data: s };
  },
});

/** Yes to a `[y/N]` question at the terminal: `y` or `yes`; everything else (and Ctrl+C) is no. */
async function confirmed(ctx: CommandContext, question: string): Promise<boolean> {
  const answer = await ctx.stores.terminal.ask({ label: `${question} [y/N] `, secret: false });
  return answer !== null && /^y(es)?$/i.test(answer.trim());
}

export const planCancel = defineCommand({
  name: 'plan cancel',
  area: AREA,
  summary:
    'Cancel Premium: with Stripe, the card subscription ends with its period (nothing more is charged); in the offline sandbox, Premium ends now. Asks first. A crypto period runs out by itself.',
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
    const ask = cancelQuestion(action, formatDay(activeCard(loaded.value)?.current_period_end ?? null));
    const label =
      action === 'end'
        ? 'End Premium now? The sandbox charged nothing and nothing renews.'
        : `${ask.question} ${ask.details.join(' ')}`;
    const cancelled = (await confirmed(ctx, label)) ? await cancelPlan(ctx.api.main) : null;
    if (cancelled === null) return [muted('Nothing was cancelled.')];
    if (!cancelled.ok) return [failure(cancelled.message)];
    const after = await loadSubscription(ctx.api.main);
    if (after.ok) rememberStatus(ctx.stores.session, after.value);
    return { lines: [success(cancelled.value.message)], data: cancelled.value };
  },
});

export const planSwitch = defineCommand({
  name: 'plan switch',
  area: AREA,
  summary:
    'Switch the card subscription to the other plan (monthly or yearly): the same subscription, prorated by Stripe, never a second one. Asks first.',
  usage: 'plan switch <plan>',
  examples: ['plan switch yearly'],
  args: z.object({ plan: PlanType.describe('monthly or yearly') }),
  complete: { plan: () => PlanType.options },
  loginRequired: true,
  async run(ctx, { plan: planType }) {
    const loaded = await loadSubscription(ctx.api.main);
    if (!loaded.ok) return [failure(loaded.message)];
    const s = loaded.value;
    const card = cardGatewayOf(ctx.stores.connection.health.peek()?.payments);
    // Only a card subscription that renews, on the other plan, has something to switch: the server
    // says why not in every other case.
    if (switchTarget(s) === planType) {
      const ask = switchQuestion(s, planType, ctx.stores.feed.now(), card);
      if (!(await confirmed(ctx, `${ask.question} ${ask.details.join(' ')}`))) {
        return [muted('Nothing was changed.')];
      }
    }
    const switched = await changePlan(ctx.api.main, planType);
    if (!switched.ok) return [failure(switched.message)];
    rememberStatus(ctx.stores.session, switched.value.subscription);
    return { lines: [success(switched.value.message)], data: switched.value };
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
    // A Premium account is told so instead of being offered to pay again (a crypto payment may still
    // add time after a period that does not renew: the server says when it may).
    const premium = isActive(ctx.stores.session.user.peek()?.subscriptionStatus);
    const loaded = premium || planType === undefined ? await loadSubscription(ctx.api.main) : null;
    if (loaded?.ok === true && isActive(loaded.value.status) && provider !== 'crypto') {
      const target = switchTarget(loaded.value);
      return {
        lines: [
          success(`You have Premium already (${describeSubscription(loaded.value)}). plan shows it.`),
          ...(target !== null && target === planType
            ? [muted(`plan switch ${target} moves the card subscription to ${target}.`)]
            : []),
        ],
        data: loaded.value,
      };
    }
    if (planType === undefined) {
      ctx.stores.premium.openUpgrade();
      const trialUsed = loaded?.ok === true && loaded.value.trial_used;
      return { lines: planLines(trialUsed), data: { plans: PLANS, trial_days: trialUsed ? 0 : TRIAL_DAYS } };
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

export default [plan, planCancel, planSwitch, upgrade];
