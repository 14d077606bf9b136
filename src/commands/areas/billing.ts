import { z } from 'zod';
import {
  PaymentProvider,
  PlanType,
  PLANS,
  PREMIUM_FEATURES,
  TRIAL_DAYS,
  type AdminSources,
  type SubscriptionView,
} from '../../contracts/billing';
import { adminApi, describeAudit, findUser } from '../../services/admin';
import { sourceFigures } from '../../services/feed/receipt';
import { cancelPlan, loadSubscription, startCheckout } from '../../services/billing';
import { cancelAction, cancelAdvice, cardGatewayOf, planFacts } from '../../services/planFacts';
import { formatDay, isActive, rememberStatus } from '../../services/premium';
import { failure, info, link, muted, success, type OutputLine } from '../../services/terminal/output';
import { defineCommand, type CommandContext } from '../types';

const AREA = 'premium';
const ADMIN_AREA = 'admin';

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

/**
 * Spec §6: the admin commands are for role admin (and need a login, which the registry checks first);
 * the server refuses everyone else with 403 too.
 */
function requireAdmin(ctx: CommandContext): OutputLine[] | null {
  const role = ctx.stores.session.user.peek()?.role;
  return role === undefined || role === 'admin' ? null : [failure('Only administrators can do that.')];
}

const userArg = z.object({ user: z.string().min(1).describe('username, e-mail or id') });

export const admin = defineCommand({
  name: 'admin',
  area: ADMIN_AREA,
  summary: 'Open the admin panel (users, Premium, sources, audit log). Administrators only.',
  usage: 'admin',
  examples: ['admin'],
  args: z.object({}),
  loginRequired: true,
  run(ctx) {
    const denied = requireAdmin(ctx);
    if (denied) return denied;
    ctx.stores.premium.openAdmin();
    return [
      muted(
        'Admin panel opened. Also: admin users, admin grant, admin revoke, admin disable, admin sources, admin audit.',
      ),
    ];
  },
});

export const adminUsers = defineCommand({
  name: 'admin users',
  area: ADMIN_AREA,
  summary: 'List every account: role, Premium status and end, disabled.',
  usage: 'admin users',
  examples: ['admin users'],
  args: z.object({}),
  loginRequired: true,
  async run(ctx) {
    const denied = requireAdmin(ctx);
    if (denied) return denied;
    const listed = await adminApi(ctx.api.main).users();
    if (!listed.ok) return [failure(listed.message)];
    const lines = listed.value.map((u) =>
      info(
        `${u.username.padEnd(16)} ${(u.email ?? '—').padEnd(26)} ${u.role.padEnd(5)} ${describeSubscription(u.subscription)}${u.disabled ? '  DISABLED' : ''}`,
      ),
    );
    return { lines, data: listed.value };
  },
});

async function withUser(
  ctx: CommandContext,
  who: string,
  act: (id: string, name: string) => Promise<OutputLine[] | { lines: OutputLine[]; data?: unknown }>,
) {
  const denied = requireAdmin(ctx);
  if (denied) return denied;
  const listed = await adminApi(ctx.api.main).users();
  if (!listed.ok) return [failure(listed.message)];
  const user = findUser(listed.value, who);
  if (user === undefined) return [failure(`No user '${who}'.`)];
  return act(user.id, user.username);
}

export const adminGrant = defineCommand({
  name: 'admin grant',
  area: ADMIN_AREA,
  summary: 'Grant Premium to an account for some days (30 by default).',
  usage: 'admin grant <user> [days]',
  examples: ['admin grant bob', 'admin grant bob 365'],
  args: userArg.extend({ days: z.coerce.number().int().min(1).max(3650).optional().describe('1 to 3650') }),
  loginRequired: true,
  run: (ctx, { user, days }) =>
    withUser(ctx, user, async (id, name) => {
      const done = await adminApi(ctx.api.main).setPremium(id, true, days ?? 30);
      if (!done.ok) return [failure(done.message)];
      return {
        lines: [success(`Premium granted to ${name}: ${describeSubscription(done.value)}.`)],
        data: done.value,
      };
    }),
});

export const adminRevoke = defineCommand({
  name: 'admin revoke',
  area: ADMIN_AREA,
  summary: 'Take Premium away from an account.',
  usage: 'admin revoke <user>',
  examples: ['admin revoke bob'],
  args: userArg,
  loginRequired: true,
  run: (ctx, { user }) =>
    withUser(ctx, user, async (id, name) => {
      const done = await adminApi(ctx.api.main).setPremium(id, false);
      if (!done.ok) return [failure(done.message)];
      return { lines: [success(`Premium revoked for ${name}.`)], data: done.value };
    }),
});

function disableCommand(name: 'admin disable' | 'admin enable', disabled: boolean) {
  return defineCommand({
    name,
    area: ADMIN_AREA,
    summary: disabled
      ? 'Disable an account: its sessions stop working and it cannot sign in.'
      : 'Enable a disabled account again.',
    usage: `${name} <user>`,
    examples: [`${name} bob`],
    args: userArg,
    loginRequired: true,
    run: (ctx, { user }) =>
      withUser(ctx, user, async (id, who) => {
        const done = await adminApi(ctx.api.main).setDisabled(id, disabled);
        if (!done.ok) return [failure(done.message)];
        return { lines: [success(`${who} ${disabled ? 'disabled' : 'enabled'}.`)], data: done.value };
      }),
  });
}

export const adminDisable = disableCommand('admin disable', true);
export const adminEnable = disableCommand('admin enable', false);

export const adminSources = defineCommand({
  name: 'admin sources',
  area: ADMIN_AREA,
  summary: 'Show the health of the server and the news sources, and how many signals each brought in.',
  usage: 'admin sources',
  examples: ['admin sources'],
  args: z.object({}),
  loginRequired: true,
  async run(ctx) {
    const denied = requireAdmin(ctx);
    if (denied) return denied;
    const got = await adminApi(ctx.api.main).sources();
    if (!got.ok) return [failure(got.message)];
    const { health, ingestion, receipts } = got.value;
    const lines: OutputLine[] = [
      info(
        `Server ${health.status}; database ${health.db} ${health.dbOk ? 'ok' : 'DOWN'}; bus ${health.bus} ${health.busOk ? 'ok' : 'DOWN'}; analyzer ${health.analyzer}`,
      ),
      ...(health.degraded.length > 0 ? [failure(`Degraded: ${health.degraded.join('; ')}`)] : []),
      info(`Sources: ${health.news.join(', ') || 'none'}`),
      ...ingestion.map((c) =>
        muted(
          `  ${c.source.padEnd(24)} ${String(c.total).padStart(7)} signals, ${c.last_24h} in 24 h${c.premium ? '  (Premium only)' : ''}${lagOf(receipts, c.source)}`,
        ),
      ),
    ];
    return { lines, data: got.value };
  },
});

/** `; lag 42 s / 7 min, 12/h, last 2 min ago` for a source the server gave figures for. */
function lagOf(receipts: AdminSources['receipts'], source: string): string {
  const r = receipts?.sources.find((x) => x.name === source);
  if (r === undefined) return '';
  const f = sourceFigures(r);
  return `; lag ${f.lag}, ${f.perHour}/h, last ${f.last}`;
}

export const adminAudit = defineCommand({
  name: 'admin audit',
  area: ADMIN_AREA,
  summary: 'Read the audit log of admin changes, newest first.',
  usage: 'admin audit [count]',
  examples: ['admin audit', 'admin audit 50'],
  args: z.object({ count: z.coerce.number().int().min(1).max(200).default(20).describe('1 to 200') }),
  loginRequired: true,
  async run(ctx, { count }) {
    const denied = requireAdmin(ctx);
    if (denied) return denied;
    const api = adminApi(ctx.api.main);
    const [log, users] = await Promise.all([api.audit(), api.users()]);
    if (!log.ok) return [failure(log.message)];
    const names = new Map(users.ok ? users.value.map((u) => [u.id, u.username]) : []);
    const rows = log.value.slice(0, count);
    if (rows.length === 0) return { lines: [muted('The audit log is empty.')], data: [] };
    return {
      lines: rows.map((e) =>
        info(`${e.created_at.slice(0, 19).replace('T', ' ')}  ${describeAudit(e, names)}`),
      ),
      data: rows,
    };
  },
});

export default [
  plan,
  planCancel,
  upgrade,
  admin,
  adminUsers,
  adminGrant,
  adminRevoke,
  adminDisable,
  adminEnable,
  adminSources,
  adminAudit,
];
