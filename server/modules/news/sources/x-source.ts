import { z } from 'zod';
import { backoffMs, jitterMs, retryAfterMs } from '../../../../src/contracts/backoff';
import type { Clock, Disposer, NewsSource, RawItem, SourceContext } from '../news.types';
import { rawItem } from '../news.types';

/** X API v2 filtered stream: one JSON object per line, `\r\n` keep-alives every ~20 s. */
const User = z.object({
  id: z.string(),
  username: z.string(),
  name: z.string().optional(),
  profile_image_url: z.string().optional(),
});
const Media = z.object({
  media_key: z.string(),
  type: z.string(),
  url: z.string().optional(),
  preview_image_url: z.string().optional(),
});
const Tweet = z.object({
  id: z.string(),
  text: z.string(),
  author_id: z.string().optional(),
  created_at: z.string().optional(),
  attachments: z.object({ media_keys: z.array(z.string()).optional() }).optional(),
  referenced_tweets: z.array(z.object({ type: z.string(), id: z.string() })).optional(),
});
export const StreamLine = z.object({
  data: Tweet.optional(),
  includes: z
    .object({
      users: z.array(User).optional(),
      media: z.array(Media).optional(),
      tweets: z.array(Tweet).optional(),
    })
    .optional(),
  errors: z.array(z.object({ title: z.string(), detail: z.string().optional() })).optional(),
});
export type StreamLine = z.infer<typeof StreamLine>;

export const STREAM_QUERY =
  'tweet.fields=created_at,author_id,attachments,referenced_tweets' +
  '&expansions=author_id,attachments.media_keys,referenced_tweets.id,referenced_tweets.id.author_id' +
  '&user.fields=username,name,profile_image_url&media.fields=url,preview_image_url,type';

export function tweetItem(line: StreamLine): RawItem | null {
  const tweet = line.data;
  if (tweet === undefined) return null;
  const users = line.includes?.users ?? [];
  const author = users.find((u) => u.id === tweet.author_id);
  const media = (tweet.attachments?.media_keys ?? []).flatMap((key) => {
    const m = line.includes?.media?.find((x) => x.media_key === key);
    return m?.url ?? m?.preview_image_url ?? [];
  });
  const quotedId = tweet.referenced_tweets?.find((r) => r.type === 'quoted')?.id;
  const quoted = line.includes?.tweets?.find((t) => t.id === quotedId);
  const quotedAuthor = users.find((u) => u.id === quoted?.author_id);
  return rawItem({
    source_name: 'X',
    username: author?.username ?? null,
    icon: author?.profile_image_url ?? null,
    url: author === undefined ? null : `https://x.com/${author.username}/status/${tweet.id}`,
    content: tweet.text,
    media_urls: media,
    quote:
      quoted === undefined
        ? null
        : {
            source_name: 'X',
            username: quotedAuthor?.username ?? null,
            icon: quotedAuthor?.profile_image_url ?? null,
            content: quoted.text,
            media_urls: [],
          },
    published_at: tweet.created_at ?? null,
    external_id: tweet.id,
  });
}

export interface XOptions {
  /** API base, https://api.x.com */
  baseUrl: string;
  bearerToken: string;
  fetch?: typeof fetch;
  /** Reconnect when nothing (not even a keep-alive) arrived for this long (90 s). */
  stallMs?: number;
  /** The back-off's randomness (`Math.random`); tests pass a fixed one. */
  random?: () => number;
}

/**
 * The wait before reconnect `attempt` (from 1). X's guidance is the least: network errors back off
 * linearly (250 ms steps up to 16 s), HTTP errors exponentially from 5 s up to 320 s, 429s from a
 * minute up to 15 minutes. Up to half of that again is added at random, so that the instances of a
 * deployment that lost the stream together do not come back together.
 */
export function xBackoff(
  kind: 'network' | 'http' | 'rate',
  attempt: number,
  random: () => number = Math.random,
): number {
  const least =
    kind === 'network'
      ? Math.min(16_000, 250 * attempt)
      : kind === 'http'
        ? backoffMs(attempt - 1, { baseMs: 5_000, maxMs: 320_000, jitter: 'none' })
        : backoffMs(attempt - 1, { baseMs: 60_000, maxMs: 15 * 60_000, jitter: 'none' });
  return least + jitterMs(least / 2, 'full', random);
}

class StreamError extends Error {
  constructor(
    message: string,
    readonly kind: 'network' | 'http' | 'rate',
    readonly waitMs: number | null = null,
  ) {
    super(message);
  }
}

/** Reads the filtered stream, reconnecting with X's back-off rules and on a stall. */
export class XSource implements NewsSource {
  readonly name = 'x' as const;

  constructor(private readonly o: XOptions) {}

  start(ctx: SourceContext): Disposer {
    let stopped = false;
    let attempt = 0;
    let controller = new AbortController();
    let cancelTimer: Disposer = () => undefined;
    const connect = async (): Promise<void> => {
      controller = new AbortController();
      try {
        await this.read(ctx, controller, () => {
          attempt = 0;
          ctx.setState('live');
        });
        throw new StreamError('stream ended', 'network');
      } catch (err) {
        if (stopped) return;
        const e = err instanceof StreamError ? err : new StreamError((err as Error).message, 'network');
        attempt += 1;
        const wait = Math.max(e.waitMs ?? 0, xBackoff(e.kind, attempt, this.o.random));
        ctx.log.warn({ attempt, wait, err: e.message }, 'X stream disconnected');
        ctx.setState('degraded', e.message);
        cancelTimer = ctx.clock.setTimer(() => void connect(), wait);
      }
    };
    cancelTimer = ctx.clock.setTimer(() => void connect(), 0);
    return () => {
      stopped = true;
      cancelTimer();
      controller.abort();
    };
  }

  private async read(ctx: SourceContext, controller: AbortController, onOpen: () => void): Promise<void> {
    const http = this.o.fetch ?? globalThis.fetch;
    const res = await http(`${this.o.baseUrl.replace(/\/+$/, '')}/2/tweets/search/stream?${STREAM_QUERY}`, {
      headers: { authorization: `Bearer ${this.o.bearerToken}` },
      signal: controller.signal,
    });
    if (res.status === 429) {
      const reset = Number(res.headers.get('x-rate-limit-reset') ?? NaN);
      const wait = Number.isFinite(reset)
        ? reset * 1000 - ctx.clock.now()
        : retryAfterMs(res.headers.get('retry-after'), ctx.clock.now());
      throw new StreamError('X answered 429', 'rate', wait);
    }
    if (!res.ok || res.body === null) throw new StreamError(`X answered ${res.status}`, 'http');
    onOpen();
    const stall = watchdog(ctx.clock, this.o.stallMs ?? 90_000, () => controller.abort());
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      const reader = res.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        stall.reset();
        buffer += decoder.decode(value, { stream: true });
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl).trim();
          buffer = buffer.slice(nl + 1);
          if (line === '') continue;
          const parsed = StreamLine.safeParse(JSON.parse(line));
          if (!parsed.success) continue;
          const error = parsed.data.errors?.[0];
          if (parsed.data.data === undefined && error !== undefined)
            throw new StreamError(`${error.title}: ${error.detail ?? ''}`, 'network');
          const item = tweetItem(parsed.data);
          if (item !== null) await ctx.emit(item);
        }
      }
    } finally {
      stall.stop();
    }
  }
}

function watchdog(clock: Clock, ms: number, onStall: () => void): { reset(): void; stop(): void } {
  let cancel = clock.setTimer(onStall, ms);
  return {
    reset() {
      cancel();
      cancel = clock.setTimer(onStall, ms);
    },
    stop: () => cancel(),
  };
}
