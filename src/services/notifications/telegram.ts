import { z } from 'zod';
import { TelegramLinkAnswer, TelegramState } from '../../contracts/notifications';
import type { ApiClient } from '../api/client';
import { errorMessage } from '../api/errors';

export const TELEGRAM_TEXT = {
  failed: 'Telegram settings could not be read.',
  linkFailed: 'No link code was made.',
  unlinkFailed: 'The chat was not unlinked.',
} as const;

export type Outcome<T> = { ok: true; value: T } | { ok: false; message: string };

/** `GET /api/notifications` answers the Telegram part beside the settings; only that part is read here. */
const TelegramPart = z.object({ telegram: TelegramState });

/** The bot and the linked chat, as the server sees them. */
export async function telegramStatus(main: ApiClient): Promise<Outcome<TelegramState>> {
  try {
    return { ok: true, value: (await main.call(TelegramPart, '/notifications')).telegram };
  } catch (error) {
    return { ok: false, message: errorMessage(error, TELEGRAM_TEXT.failed) };
  }
}

/** `POST /api/notifications/telegram/link`: a one-time code (10 minutes) and its t.me link. */
export async function linkTelegram(main: ApiClient): Promise<Outcome<TelegramLinkAnswer>> {
  try {
    return {
      ok: true,
      value: await main.call(TelegramLinkAnswer, '/notifications/telegram/link', { method: 'POST' }),
    };
  } catch (error) {
    return { ok: false, message: errorMessage(error, TELEGRAM_TEXT.linkFailed) };
  }
}

/** `DELETE /api/notifications/telegram/link`. */
export async function unlinkTelegram(main: ApiClient): Promise<Outcome<null>> {
  try {
    await main.send('/notifications/telegram/link', { method: 'DELETE' });
    return { ok: true, value: null };
  } catch (error) {
    return { ok: false, message: errorMessage(error, TELEGRAM_TEXT.unlinkFailed) };
  }
}
