import { z } from 'zod';
import type { TelegramLinkAnswer, TelegramState } from '../../contracts/notifications';
import { linkTelegram, loadNotifications, unlinkTelegram } from '../../services/notifications';
import { failure, info, link, muted, success, type OutputLine } from '../../services/terminal/output';
import { utcStamp } from '../../services/time';
import { defineCommand } from '../types';

const AREA = 'telegram';

/** "2026-11-27 07:52:10 UTC": a moment as the console writes it. */
const expiryText = (iso: string): string => utcStamp(iso);

function statusLines(s: TelegramState): OutputLine[] {
  if (!s.configured) {
    return [muted('Telegram is not set up on this server (it needs TELEGRAM_BOT_TOKEN).')];
  }
  const bot = s.bot === null ? 'the bot' : `@${s.bot}`;
  if (!s.linked) return [info(`Not linked to ${bot}. Link a chat with: telegram link`)];
  const since = s.linked_at === null ? '' : ` since ${expiryText(s.linked_at)}`;
  return [info(`Linked to ${bot}${s.chat === null ? '' : ` in ${s.chat}`}${since}.`)];
}

/** A link code as the server made it: the t.me link, the code for /start, and when it expires. */
export function linkAnswerLines(made: TelegramLinkAnswer): OutputLine[] {
  return [
    link(made.url, made.url, 'Open ', ' in Telegram and press Start,'),
    info(`or send the bot: /start ${made.code}`),
    muted(
      `The code works once, in a private chat with the bot, and expires at ${expiryText(made.expires_at)}; a newer code replaces it.`,
    ),
  ];
}

export const UNLINKED = 'Telegram unlinked: nothing more is sent to that chat.';

export const telegram = defineCommand({
  name: 'telegram',
  area: AREA,
  summary: 'Show whether a Telegram chat gets your alerts, fills and proposals.',
  usage: 'telegram',
  examples: ['telegram'],
  args: z.object({}),
  loginRequired: true,
  async run(ctx) {
    const loaded = await loadNotifications(ctx.api.main, ctx.stores.notifications);
    if (!loaded.ok) return [failure(loaded.message)];
    return { lines: statusLines(loaded.value.telegram), data: loaded.value.telegram };
  },
});

export const telegramLink = defineCommand({
  name: 'telegram link',
  area: AREA,
  summary: 'Make a one-time code (10 minutes, single use) that links a Telegram chat to your account.',
  usage: 'telegram link',
  examples: ['telegram link'],
  args: z.object({}),
  loginRequired: true,
  async run(ctx) {
    const made = await linkTelegram(ctx.api.main, ctx.stores.notifications);
    if (!made.ok) return [failure(made.message)];
    return { lines: linkAnswerLines(made.value), data: made.value };
  },
});

export const telegramUnlink = defineCommand({
  name: 'telegram unlink',
  area: AREA,
  summary: 'Stop sending to the linked Telegram chat.',
  usage: 'telegram unlink',
  examples: ['telegram unlink'],
  args: z.object({}),
  loginRequired: true,
  async run(ctx) {
    const done = await unlinkTelegram(ctx.api.main, ctx.stores.notifications);
    if (!done.ok) return [failure(done.message)];
    return [success(UNLINKED)];
  },
});

export default [telegram, telegramLink, telegramUnlink];
