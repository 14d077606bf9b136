import { RetryAfterError, startPolling } from '../../news/sources/poller';
import type { Clock, Disposer } from '../../market/clock';
import { BotApiError, parseUpdate, type BotApi, type TgUpdate } from './bot-api';
import { logReason } from './log-reason';

/** The updates the bot asks for: its chats, its buttons, and the channels' posts it hands to the news. */
export const ALLOWED_UPDATES = ['message', 'callback_query', 'channel_post'] as const;

export interface UpdateSink {
  /** A chat's message or a button press. */
  handle(update: TgUpdate): Promise<void>;
  /**
   * Channel posts, for the news source: never a private chat's message. `backlogBefore` (ms): posts made
   * before it were waiting while nothing read (shown, not traded).
   */
  posts(updates: TgUpdate[], backlogBefore: number | null): Promise<void>;
}

/**
 * Hands a batch to the sink: channel posts together, each chat's messages in order, chats side by side.
 */
export async function dispatch(updates: readonly TgUpdate[], sink: UpdateSink, backlogBefore: number | null) {
  const posts = updates.filter((u) => u.channel_post !== undefined);
  const byChat = new Map<number, TgUpdate[]>();
  for (const u of updates) {
    const chat = u.message?.chat.id ?? u.callback_query?.message?.chat.id ?? u.callback_query?.from.id;
    if (chat === undefined) continue;
    byChat.set(chat, [...(byChat.get(chat) ?? []), u]);
  }
  await Promise.all([
    posts.length > 0 ? sink.posts(posts, backlogBefore) : Promise.resolve(),
    ...[...byChat.values()].map(async (list) => {
      for (const u of list) await sink.handle(u);
    }),
  ]);
}

/**
 * Reads what Telegram sent as updates: the ones the bot can read, and the highest update_id seen (so that
 * an update it cannot read is confirmed too, never fetched again). One it cannot read is told to `ignored`
 * by its id only: its content is whatever anyone typed, and stays out of the logs.
 */
export function readUpdates(
  raw: unknown,
  ignored: (updateId: number | null) => void,
): { updates: TgUpdate[]; lastId: number | null } {
  const updates: TgUpdate[] = [];
  let lastId: number | null = null;
  for (const item of Array.isArray(raw) ? raw : []) {
    const { update, id } = parseUpdate(item);
    if (id !== null) lastId = Math.max(lastId ?? id, id);
    if (update === null) ignored(id);
    else updates.push(update);
  }
  return { updates, lastId };
}

export interface PollerOptions {
  api: BotApi;
  clock: Clock;
  sink: UpdateSink;
  /** Long-poll timeout in seconds (25). */
  longPollSeconds?: number;
  /** Pause after an empty answer (a long poll that returned at once). */
  intervalMs?: number;
  onState(ok: boolean, reason?: string): void;
  /** An update the bot could not read (by its id, if it had one): confirmed and dropped. */
  onIgnored(updateId: number | null): void;
}

/**
 * The one reader of the bot's updates when there is no webhook: `getUpdates` from the offset after the
 * last update handled, so each update arrives once (one that was being handled when the process died is
 * read again by the next holder of the lease). A webhook left set (Telegram then answers getUpdates with
 * 409) is removed before the next poll.
 */
export function startUpdatePolling(o: PollerOptions): Disposer {
  let offset = 0;
  /** Telegram said a webhook is set (409): it is removed before the next poll. */
  let webhookSet = false;
  const timeout = o.longPollSeconds ?? 25;
  const intervalMs = o.intervalMs ?? 1000;
  return startPolling({
    clock: o.clock,
    intervalMs,
    maxBackoffMs: 60_000,
    run: async (signal, first) => {
      if (webhookSet) {
        await o.api.call('deleteWebhook', {}, { signal });
        webhookSet = false;
      }
      const asked = o.clock.now();
      const answer = await o.api
        .call<unknown>(
          'getUpdates',
          { offset, timeout, allowed_updates: ALLOWED_UPDATES },
          { signal, extraMs: timeout * 1000 },
        )
        .catch((err: unknown) => {
          if (err instanceof BotApiError && err.retryAfter !== undefined) {
            throw new RetryAfterError(err.message, err.retryAfter * 1000);
          }
          throw err;
        });
      const { updates, lastId } = readUpdates(answer, o.onIgnored);
      await dispatch(updates, o.sink, first ? asked : null);
      if (lastId !== null) offset = Math.max(offset, lastId + 1);
      return lastId !== null ? 0 : intervalMs;
    },
    onSuccess: () => o.onState(true),
    onFailure: (err) => {
      // The api's errors never carry the token; 409: another reader or a webhook (cleared on the next try).
      if (err instanceof BotApiError && err.status === 409 && /webhook/i.test(err.description)) {
        webhookSet = true;
      }
      o.onState(false, logReason(err));
    },
  });
}
