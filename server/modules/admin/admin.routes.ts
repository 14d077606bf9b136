import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AdminSources,
  AdminUser,
  AuditEntry,
  DisableUserRequest,
  GrantPremiumRequest,
  SubscriptionView,
} from '../../../src/contracts/billing';
import { appError } from '../../plugins/errors';
import { BEARER } from '../../plugins/openapi';
import type { UsersService } from '../users/users.service';
import type { AdminRepo } from './admin.repo';

const UserParams = z.object({ id: z.uuid() });
/** Admin routes check the role after `requireUser`: the document names the bearer scheme itself. */
const ADMIN = { security: [{ [BEARER]: [] }], tags: ['admin'] };
const DAY_MS = 86_400_000;

/**
 * The admin panel's API (`/admin/*`), for role admin only (403 for everyone else). Every change is
 * written to the audit log, which admins can read.
 */
export function registerAdminRoutes(
  instance: FastifyInstance,
  { users, audit }: { users: UsersService; audit: AdminRepo },
): void {
  const app = instance.withTypeProvider<ZodTypeProvider>();

  const requireAdmin = async (request: FastifyRequest) => {
    await app.requireUser(request);
    if (request.principal?.role !== 'admin') throw appError('FORBIDDEN');
  };
  const actor = (request: FastifyRequest) => request.principal?.userId ?? null;
  /** The account a route's `:id` names, once it is known to exist. */
  const target = async (id: string) => {
    if ((await users.findById(id)) === undefined) throw appError('NOT_FOUND', 'User not found.');
    return id;
  };

  const usersSchema = { ...ADMIN, summary: 'Every account', response: { 200: z.array(AdminUser) } };
  app.get(
    '/admin/users',
    { preValidation: requireAdmin, schema: usersSchema },
    async (): Promise<AdminUser[]> => {
      const rows = await users.listAll();
      return Promise.all(
        rows.map(async (u) => ({
          id: u.id,
          email: u.email,
          username: u.username,
          role: u.role,
          disabled: u.disabledAt !== null,
          subscription: await app.billing.me(u.id),
          created_at: u.createdAt.toISOString(),
        })),
      );
    },
  );

  const premiumSchema = {
    ...ADMIN,
    summary: 'Grant or revoke Premium',
    params: UserParams,
    body: GrantPremiumRequest,
    response: { 200: SubscriptionView },
  };
  app.post(
    '/admin/users/:id/premium',
    { preValidation: requireAdmin, schema: premiumSchema },
    async (request) => {
      const id = await target(request.params.id);
      const body = request.body;
      await app.billing.setPremiumByAdmin(id, body.premium, body.days);
      await audit.record({
        actorId: actor(request),
        action: body.premium ? 'premium.grant' : 'premium.revoke',
        targetUserId: id,
        detail: body.premium ? { days: body.days } : {},
      });
      return app.billing.me(id);
    },
  );

  const disableSchema = {
    ...ADMIN,
    summary: 'Disable or enable an account',
    params: UserParams,
    body: DisableUserRequest,
    response: { 200: z.object({ id: z.string(), disabled: z.boolean() }) },
  };
  app.post(
    '/admin/users/:id/disable',
    { preValidation: requireAdmin, schema: disableSchema },
    async (request) => {
      const id = await target(request.params.id);
      const { disabled } = request.body;
      if (id === actor(request) && disabled)
        throw appError('CONFLICT', 'You cannot disable your own account.');
      await users.setDisabled(id, disabled);
      if (disabled) await app.bus.publish('auth.sessions', { userId: id });
      await audit.record({
        actorId: actor(request),
        action: disabled ? 'user.disable' : 'user.enable',
        targetUserId: id,
        detail: {},
      });
      return { id, disabled };
    },
  );

  const sourcesSchema = {
    ...ADMIN,
    summary: 'News sources and what they brought in',
    response: { 200: AdminSources },
  };
  app.get(
    '/admin/sources',
    { preValidation: requireAdmin, schema: sourcesSchema },
    async (): Promise<AdminSources> => {
      const since = new Date(Date.now() - DAY_MS);
      const [health, counts, receipts] = await Promise.all([
        app.health.snapshot(),
        app.news.ingestionCounts(since),
        app.newsSources.list(),
      ]);
      const premium = new Set<string>(app.config.PREMIUM_NEWS_SOURCES);
      // Every configured source is listed, with zero when it has brought nothing in yet.
      const names = [...new Set([...app.config.NEWS_SOURCES, ...counts.map((c) => c.source)])].sort();
      return {
        health,
        receipts,
        ingestion: names.map((source) => {
          const c = counts.find((x) => x.source === source);
          return {
            source,
            total: c?.total ?? 0,
            last_24h: c?.recent ?? 0,
            premium: premium.has(source),
          };
        }),
      };
    },
  );

  const auditSchema = {
    ...ADMIN,
    summary: 'The latest admin actions',
    response: { 200: z.array(AuditEntry) },
  };
  app.get(
    '/admin/audit',
    { preValidation: requireAdmin, schema: auditSchema },
    async (): Promise<AuditEntry[]> =>
      (await audit.recent(200)).map((r) => ({
        id: r.id,
        actor_id: r.actorId,
        action: r.action,
        target_user_id: r.targetUserId,
        detail: r.detail,
        created_at: r.createdAt.toISOString(),
      })),
  );
}
