import { AppError, loggable } from '../../../plugins/errors';
import { BotApiError, BotApiUnreachable } from './bot-api';

/**
 * What a log line may say of a failure in the bot: a Bot API error's own redacted text, an app error's
 * code, a failed query's SQL without its parameters, a database error's code, or another error's name
 * and first line. Never what a chat sent (an update, a message's text) nor anything carrying the token.
 */
export function logReason(err: unknown): string {
  if (err instanceof BotApiError || err instanceof BotApiUnreachable) return err.message;
  if (err instanceof AppError) return err.code;
  if (!(err instanceof Error)) return 'unknown failure';
  const first = (loggable(err) as Error).message.split('\n')[0] ?? '';
  // drizzle's "Failed query: <sql>" names the statement; its parameters were on the next line.
  if (first.startsWith('Failed query:')) return first.slice(0, 300);
  // A database error's text quotes the values it refused: its code says enough.
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') return `${err.name} (${code})`;
  return `${err.name}: ${first.slice(0, 200)}`;
}
