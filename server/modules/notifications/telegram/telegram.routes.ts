import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { TelegramLinkAnswer } from '../../../../src/contracts/notifications';
import { appError } from '../../../plugins/errors';
import type { TgUpdate } from './bot-api';

export const NOT_CONFIGURED =
  'Telegram is not set up on this server: it needs TELEGRAM_BOT_TOKEN (a bot made with @BotFather).';
export const BOT_UNKNOWN =
  'Telegram is not answering, so the bot’s link cannot be made now. Try again in a minute.';

export interface TelegramRouteDeps {
  configured: boolean;
  link(userId: string): Promise<TelegramLinkAnswer>;
  unlink(userId: string): Promise<void>;
  /** Present in webhook mode: the secret Telegram sends back, and what takes the update. */
  webhook: { secret: string; take(update: TgUpdate): Promise<void> } | null;
}

function userOf(request: FastifyRequest): string {
  const principal = request.principal;
  if (principal === null) throw appError('UNAUTHORIZED');
  return principal.userId;
}

const sha = (value: string) => createHash('sha256').update(value).digest();

/** An update as Telegram posts it; the bot reads the fields it knows. */
const WebhookUpdate = z.looseObject({ update_id: z.number().int() });

/** `POST/DELETE /notifications/telegram/link` for the signed-in user, and the webhook Telegram calls. */
export function registerTelegramRoutes(instance: FastifyInstance, deps: TelegramRouteDeps): void {
  const app = instance.withTypeProvider<ZodTypeProvider>();
  const authed = { preValidation: app.requireUser };

  const linkSchema = {
    summary: 'A one-time code linking a Telegram chat to your account',
    description:
      'Open the t.me link (or send `/start <code>` to the bot) within 10 minutes; the code works once.',
    response: { 200: TelegramLinkAnswer },
  };
  app.post('/notifications/telegram/link', { ...authed, schema: linkSchema }, async (request) => {
    const userId = userOf(request);
    if (!deps.configured) throw appError('SERVICE_UNAVAILABLE', NOT_CONFIGURED);
    return deps.link(userId);
  });

  const unlinkSchema = {
    summary: 'Unlink your Telegram chat',
    response: { 204: z.undefined().describe('Unlinked (or nothing was linked)') },
  };
  app.delete('/notifications/telegram/link', { ...authed, schema: unlinkSchema }, async (request, reply) => {
    await deps.unlink(userOf(request));
    reply.code(204);
  });

  const webhook = deps.webhook;
  if (webhook === null) return;
  const expected = sha(webhook.secret);
  const checkSecret = async (request: FastifyRequest, _reply: FastifyReply) => {
    const given = request.headers['x-telegram-bot-api-secret-token'];
    // Compared as digests: the same length whatever was sent, in constant time.
    if (typeof given !== 'string' || !timingSafeEqual(sha(given), expected)) throw appError('UNAUTHORIZED');
  };
  app.post(
    '/notifications/telegram/webhook',
    {
      onRequest: checkSecret,
      schema: {
        summary: "The Telegram bot's updates (webhook mode)",
        description:
          'Called by Telegram with the secret set by setWebhook in X-Telegram-Bot-Api-Secret-Token.',
        body: WebhookUpdate,
        response: { 200: z.object({ ok: z.boolean() }) },
      },
    },
    async (request) => {
      await webhook.take(request.body as TgUpdate);
      return { ok: true };
    },
  );
}
