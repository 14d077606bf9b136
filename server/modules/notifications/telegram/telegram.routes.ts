import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { TelegramLinkAnswer } from '../../../../src/contracts/notifications';
import { appError } from '../../../plugins/errors';

export const NOT_CONFIGURED =
  'Telegram is not set up on this server: it needs TELEGRAM_BOT_TOKEN (a bot made with @BotFather).';
export const BOT_UNKNOWN =
  'Telegram is not answering, so the bot’s link cannot be made now. Try again in a minute.';

export interface TelegramRouteDeps {
  configured: boolean;
  link(userId: string): Promise<TelegramLinkAnswer>;
  unlink(userId: string): Promise<void>;
  /**
   * Present in webhook mode: the secret Telegram sends back, and what takes the update as it came (it
   * reads it, and ignores one it cannot read).
   */
  webhook: { secret: string; take(update: unknown): Promise<void> } | null;
}

function userOf(request: FastifyRequest): string {
  const principal = request.principal;
  if (principal === null) throw appError('UNAUTHORIZED');
  return principal.userId;
}

const sha = (value: string) => createHash('sha256').update(value).digest();

/**
 * An update as Telegram posts it. Any JSON is taken and answered 200: the bot reads it with its own schema
 * and ignores what it cannot read, because Telegram sends an update it got no 2xx for again and again.
 */
const WebhookUpdate = z.unknown().describe('A Telegram Update object');

/** `POST/DELETE /notifications/telegram/link` for the signed-in user, and the webhook Telegram calls. */
export function registerTelegramRoutes(instance: FastifyInstance, deps: TelegramRouteDeps): void {
  const app = instance.withTypeProvider<ZodTypeProvider>();
  const authed = { preValidation: app.requireUser };

  const linkSchema = {
    summary: 'A one-time code linking a Telegram chat to your account',
    description:
      'Open the t.me link (or send `/start <code>` to the bot) from a private chat within 10 minutes; the ' +
      'code works once, and a newer code or an unlink voids it. A linked chat is a new way to reach and ' +
      'act on the account, so this needs a sign-in confirmed in the last minutes (403 step_up_required).',
    response: { 200: TelegramLinkAnswer },
  };
  app.post('/notifications/telegram/link', { ...authed, schema: linkSchema }, async (request) => {
    const userId = userOf(request);
    if (!deps.configured) throw appError('SERVICE_UNAVAILABLE', NOT_CONFIGURED);
    await app.requireStepUp(request);
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
      await webhook.take(request.body);
      return { ok: true };
    },
  );
}
