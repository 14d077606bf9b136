import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  NotificationSettings,
  NotificationSettingsPatch,
  NotificationsState,
  PushSubscriptionBody,
} from '../../../src/contracts/notifications';
import { appError } from '../../plugins/errors';
import type { NotificationsService } from './notifications.service';

function userOf(request: FastifyRequest): string {
  if (request.principal === null) throw appError('UNAUTHORIZED');
  return request.principal.userId;
}

const PushEndpoint = z.object({ endpoint: PushSubscriptionBody.shape.endpoint });

/**
 * `GET/PATCH /notifications` (what reaches the signed-in user away from the tab) and
 * `POST/DELETE /notifications/push` (this browser's Web Push subscription).
 */
export function registerNotificationsRoutes(instance: FastifyInstance, service: NotificationsService): void {
  const app = instance.withTypeProvider<ZodTypeProvider>();
  const authed = { preValidation: app.requireUser };

  const stateSchema = {
    summary: 'Your notification settings, Telegram link and Web Push state',
    response: { 200: NotificationsState },
  };
  app.get('/notifications', { ...authed, schema: stateSchema }, async (request) =>
    service.state(userOf(request)),
  );

  const patchSchema = {
    summary: 'Change some notification settings',
    description:
      'Turning on telegram_live_orders needs a sign-in confirmed in the last minutes (403 step_up_required).',
    body: NotificationSettingsPatch,
    response: { 200: NotificationSettings },
  };
  app.patch('/notifications', { ...authed, schema: patchSchema }, async (request) => {
    const userId = userOf(request);
    // Orders on live money from a chat message are confirmed like any other loosening of the guards.
    if (await service.needsStepUp(userId, request.body)) await app.requireStepUp(request);
    return service.patch(userId, request.body);
  });

  const subscribeSchema = {
    summary: 'Send Web Push to this browser',
    description:
      "The browser's PushSubscription.toJSON(); one row per endpoint (subscribing again replaces it), at " +
      'most 10 per user (the oldest give way). The endpoint must be https on port 443 at a push service ' +
      'the server sends to, and every address its host resolves to public (422 otherwise). A browser ' +
      'taking pushes is a new way to reach the account: it needs a sign-in confirmed in the last minutes ' +
      '(403 step_up_required).',
    body: PushSubscriptionBody,
    response: { 204: z.undefined().describe('Subscribed') },
  };
  app.post('/notifications/push', { ...authed, schema: subscribeSchema }, async (request, reply) => {
    await app.requireStepUp(request);
    await service.subscribe(userOf(request), request.body, request.headers['user-agent'] ?? null);
    reply.code(204);
  });

  const unsubscribeSchema = {
    summary: 'Stop sending Web Push to this browser',
    body: PushEndpoint,
    response: { 204: z.undefined().describe('Unsubscribed') },
  };
  app.delete('/notifications/push', { ...authed, schema: unsubscribeSchema }, async (request, reply) => {
    await service.unsubscribe(userOf(request), request.body.endpoint);
    reply.code(204);
  });
}
