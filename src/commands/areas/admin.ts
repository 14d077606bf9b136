import { z } from 'zod';
import type { AdminSources } from '../../contracts/billing';
import { adminApi, describeAudit, findUser } from '../../services/admin';
import { sourceFigures } from '../../services/feed/receipt';
import { failure, info, muted, success, type OutputLine } from '../../services/terminal/output';
import { defineCommand, type CommandContext } from '../types';
import { describeSubscription } from './billing';

const ADMIN_AREA = 'admin';

/**
 * docs/product.md §6: the admin commands are for role admin (and need a login, which the registry checks first);
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
  admin,
  adminUsers,
  adminGrant,
  adminRevoke,
  adminDisable,
  adminEnable,
  adminSources,
  adminAudit,
];
