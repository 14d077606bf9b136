import Parser from 'rss-parser';
import type { Disposer, NewsSource, RawItem, SourceContext } from '../news.types';
import { rawItem } from '../news.types';
import { fetchSource } from './fetch-source';
import { startPolling } from './poller';

export interface RssOptions {
  feeds: readonly string[];
  intervalMs: number;
  maxBackoffMs?: number;
  /** Items taken from a feed's first answer (the rest is old news). */
  firstPollItems?: number;
  fetch?: typeof fetch;
}

interface FeedState {
  etag: string | null;
  lastModified: string | null;
  polled: boolean;
  failing: boolean;
  /** Ids in the feed's last answer: only items not among them are new. */
  seen: Set<string>;
}

type FeedItem = Parser.Item & { id?: string };

const parser = new Parser<Record<string, never>, { id?: string }>({ customFields: { item: ['id'] } });

/** A feed's items, newest first, as raw items (title as the content, the link as the url). */
export function feedItems(feed: Parser.Output<{ id?: string }>, feedUrl: string): RawItem[] {
  const source = feed.title?.trim() || new URL(feedUrl).hostname;
  const items = feed.items.map((it: FeedItem) => {
    const media = it.enclosure?.type?.startsWith('image/') === true ? [it.enclosure.url] : [];
    return rawItem({
      source_name: source,
      username: it.creator ?? null,
      icon: feed.image?.url ?? null,
      url: it.link ?? null,
      content: it.title?.trim() || it.contentSnippet?.slice(0, 500) || '',
      media_urls: media,
      published_at: it.isoDate ?? null,
      external_id: it.guid ?? it.id ?? it.link ?? null,
    });
  });
  return items.sort((a, b) => Date.parse(b.published_at ?? '') - Date.parse(a.published_at ?? '') || 0);
}

/**
 * Polls RSS/Atom feeds with conditional requests (ETag / If-Modified-Since; a 304 costs nothing), each
 * feed on its own back-off. The first answer of a feed gives only its latest few items.
 */
export class RssSource implements NewsSource {
  readonly name = 'rss' as const;

  constructor(private readonly o: RssOptions) {}

  start(ctx: SourceContext): Disposer {
    if (this.o.feeds.length === 0) {
      ctx.setState('degraded', 'RSS_FEEDS is empty');
      return () => undefined;
    }
    const states = this.o.feeds.map<FeedState>(() => ({
      etag: null,
      lastModified: null,
      polled: false,
      failing: false,
      seen: new Set(),
    }));
    const report = () => {
      const failing = states.filter((s) => s.failing).length;
      if (failing === 0) ctx.setState('live');
      else ctx.setState('degraded', `${failing} of ${states.length} feeds failing`);
    };
    const stops = this.o.feeds.map((url, i) => {
      const state = states[i] as FeedState;
      return startPolling({
        clock: ctx.clock,
        intervalMs: this.o.intervalMs,
        maxBackoffMs: this.o.maxBackoffMs ?? 30 * 60_000,
        run: async (signal) => {
          const headers: Record<string, string> = {
            accept: 'application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.8',
          };
          if (state.etag !== null) headers['if-none-match'] = state.etag;
          if (state.lastModified !== null) headers['if-modified-since'] = state.lastModified;
          const res = await fetchSource(url, {
            http: this.o.fetch,
            clock: ctx.clock,
            who: 'feed',
            headers,
            signal,
            timeoutMs: 15_000,
            retryOn: [429, 503],
            pass: [304],
          });
          if (res.status === 304) return;
          const feed = await parser.parseString(await res.text());
          state.etag = res.headers.get('etag');
          state.lastModified = res.headers.get('last-modified');
          const items = feedItems(feed, url);
          const fresh = items.filter((it) => it.external_id === null || !state.seen.has(it.external_id));
          // A feed's first answer is what was waiting there: shown, never traded (backlog).
          const backlog = !state.polled;
          const take = backlog ? fresh.slice(0, this.o.firstPollItems ?? 10) : fresh;
          state.polled = true;
          state.seen = new Set(items.flatMap((it) => it.external_id ?? []));
          for (const item of take.reverse()) await ctx.emit(backlog ? { ...item, backlog } : item);
        },
        onSuccess: () => {
          state.failing = false;
          report();
        },
        onFailure: (err, failures, retryIn) => {
          state.failing = true;
          ctx.log.warn({ feed: url, failures, retryIn, err: (err as Error).message }, 'RSS poll failed');
          report();
        },
      });
    });
    return () => {
      for (const stop of stops) stop();
    };
  }
}
