import { z } from 'zod';
import type { Disposer, NewsSource, RawItem, SourceContext } from '../news.types';
import { rawItem } from '../news.types';
import { fetchSource } from './fetch-source';
import { RetryAfterError, startPolling } from './poller';

/** Telegram Bot API `getUpdates` answer: channel posts of the channels the bot is a member of. */
const Chat = z.object({
  id: z.number(),
  type: z.string(),
  title: z.string().optional(),
  username: z.string().optional(),
});
const Message = z.object({
  message_id: z.number(),
  date: z.number(),
  chat: Chat,
  text: z.string().optional(),
  caption: z.string().optional(),
  forward_origin: z
    .object({ type: z.string(), chat: Chat.optional(), sender_user_name: z.string().optional() })
    .optional(),
});
const Update = z.object({
  update_id: z.number(),
  channel_post: Message.optional(),
  message: Message.optional(),
});
export const UpdatesAnswer = z.union([
  z.object({ ok: z.literal(true), result: z.array(Update) }),
  z.object({
    ok: z.literal(false),
    error_code: z.number(),
    description: z.string(),
    parameters: z.object({ retry_after: z.number().optional() }).optional(),
  }),
]);

const ICON = '/api/news/assets/icons/telegram.svg';

export function updateItem(update: z.infer<typeof Update>): RawItem | null {
  const post = update.channel_post ?? update.message;
  const text = post?.text ?? post?.caption;
  if (post === undefined || text === undefined) return null;
  // A person writing to the bot is not news.
  if (post.chat.type === 'private') return null;
  const chat = post.chat;
  const origin = post.forward_origin;
  return rawItem({
    source_name: 'Telegram',
    username: chat.title ?? chat.username ?? String(chat.id),
    icon: ICON,
    url: chat.username === undefined ? null : `https://t.me/${chat.username}/${post.message_id}`,
    content: text,
    published_at: new Date(post.date * 1000).toISOString(),
    external_id: `${chat.id}:${post.message_id}`,
    ...(origin?.chat?.title !== undefined
      ? {
          quote: {
            source_name: 'Telegram',
            username: origin.chat.title,
            icon: ICON,
            content: `Forwarded from ${origin.chat.title}`,
            media_urls: [],
          },
        }
      : {}),
  });
}

/** Channel posts the bot's own reader hands over (`telegram.posts` on the bus), when the bot reads the updates. */
export interface TelegramPostsFeed {
  /** `backlogBefore` (ms): posts made before it were waiting while nothing read them. */
  subscribe(fn: (updates: unknown[], backlogBefore: number | null) => void | Promise<void>): Disposer;
}

/**
 * A bot has one reader of its updates (a second `getUpdates` gets 409). While the Telegram bot of the
 * notifications module runs in this process it is that reader, and the source takes the channel posts
 * it hands over instead of polling; without it, the source polls as before.
 */
export class TelegramHandoff {
  private feed: TelegramPostsFeed | null = null;
  private readonly listeners = new Set<() => void>();

  /** The bot reads the updates from now on; the disposer gives the reading back to the source. */
  botReads(feed: TelegramPostsFeed): Disposer {
    this.feed = feed;
    for (const fn of this.listeners) fn();
    return () => {
      if (this.feed !== feed) return;
      this.feed = null;
      for (const fn of this.listeners) fn();
    };
  }

  current(): TelegramPostsFeed | null {
    return this.feed;
  }

  onChange(fn: () => void): Disposer {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}

export interface TelegramOptions {
  /** https://api.telegram.org */
  baseUrl: string;
  botToken: string;
  /** Long-poll timeout in seconds (25). */
  longPollSeconds?: number;
  /** Pause between polls that returned at once (e.g. a double answering immediately). */
  intervalMs: number;
  fetch?: typeof fetch;
  /** Where the bot, when it runs, hands channel posts over instead of the source polling. */
  handoff?: TelegramHandoff;
}

/**
 * Long-polls `getUpdates` with the offset after the last update seen, so each post arrives once; posts
 * in channels (and messages in groups) the bot belongs to become items. Media are not fetched: Telegram's
 * file links carry the bot token.
 */
export class TelegramSource implements NewsSource {
  readonly name = 'telegram' as const;

  constructor(private readonly o: TelegramOptions) {}

  start(ctx: SourceContext): Disposer {
    const handoff = this.o.handoff;
    if (handoff === undefined) return this.poll(ctx);
    let stop = this.follow(ctx, handoff);
    const unlisten = handoff.onChange(() => {
      stop();
      stop = this.follow(ctx, handoff);
    });
    return () => {
      unlisten();
      stop();
    };
  }

  /** Takes the bot's channel posts while it reads the updates, else polls. */
  private follow(ctx: SourceContext, handoff: TelegramHandoff): Disposer {
    const feed = handoff.current();
    if (feed === null) return this.poll(ctx);
    ctx.setState('live');
    return feed.subscribe(async (updates, backlogBefore) => {
      for (const raw of updates) {
        const update = Update.safeParse(raw);
        if (!update.success || update.data.channel_post === undefined) continue;
        const item = updateItem({ update_id: update.data.update_id, channel_post: update.data.channel_post });
        if (item === null) continue;
        const queued = backlogBefore !== null && Date.parse(item.published_at ?? '') < backlogBefore;
        await ctx.emit(queued ? { ...item, backlog: true } : item);
      }
    });
  }

  private poll(ctx: SourceContext): Disposer {
    let offset = 0;
    const timeout = this.o.longPollSeconds ?? 25;
    return startPolling({
      clock: ctx.clock,
      intervalMs: this.o.intervalMs,
      maxBackoffMs: 5 * 60_000,
      run: async (signal, first) => {
        const asked = ctx.clock.now();
        const url = new URL(`${this.o.baseUrl.replace(/\/+$/, '')}/bot${this.o.botToken}/getUpdates`);
        url.searchParams.set('offset', String(offset));
        url.searchParams.set('timeout', String(timeout));
        url.searchParams.set('allowed_updates', JSON.stringify(['channel_post', 'message']));
        // Telegram answers a refusal with a body that says so (and how long to wait): read it, whatever the status.
        const res = await fetchSource(url, {
          http: this.o.fetch,
          clock: ctx.clock,
          who: 'Telegram',
          signal,
          timeoutMs: (timeout + 10) * 1000,
          checkStatus: false,
        });
        const body = UpdatesAnswer.parse(await res.json());
        if (!body.ok) {
          const wait = body.parameters?.retry_after;
          if (wait !== undefined) throw new RetryAfterError(`Telegram ${body.error_code}`, wait * 1000);
          throw new Error(`Telegram ${body.error_code}: ${body.description}`);
        }
        for (const update of body.result) {
          offset = Math.max(offset, update.update_id + 1);
          const item = updateItem(update);
          // The first answer holds the posts queued while nothing polled: shown, never traded (backlog).
          // A post made while that long poll waited is news arriving now.
          const queued = first && item !== null && Date.parse(item.published_at ?? '') < asked;
          if (item !== null) await ctx.emit(queued ? { ...item, backlog: true } : item);
        }
        return body.result.length > 0 ? 0 : this.o.intervalMs;
      },
      onSuccess: () => ctx.setState('live'),
      onFailure: (err, failures, retryIn) => {
        // The token is in the URL: log only the message, which never carries it.
        ctx.log.warn({ failures, retryIn, err: (err as Error).message }, 'Telegram poll failed');
        ctx.setState('degraded', (err as Error).message);
      },
    });
  }
}
