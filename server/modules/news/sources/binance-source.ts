import { z } from 'zod';
import type { Disposer, NewsSource, RawItem, SourceContext } from '../news.types';
import { rawItem } from '../news.types';
import { fetchSource } from './fetch-source';
import { startPolling } from './poller';

/** Binance's announcement catalogs the pipeline follows: new listings and delistings. */
export const BINANCE_CATALOGS = { 48: 'New Cryptocurrency Listing', 161: 'Delisting' } as const;

/** The shape of `GET /bapi/composite/v1/public/cms/article/list/query?type=1&pageNo=1&pageSize=N`. */
const Article = z.object({
  id: z.number(),
  code: z.string(),
  title: z.string(),
  releaseDate: z.number(),
});
const Catalog = z.object({
  catalogId: z.number(),
  catalogName: z.string(),
  articles: z.array(Article),
});
export const AnnouncementList = z.object({
  code: z.string(),
  success: z.boolean(),
  data: z.object({ catalogs: z.array(Catalog) }).nullable(),
  message: z.string().nullable().optional(),
});

const ICON = '/api/news/assets/icons/binance.svg';

export function announcementItems(body: z.infer<typeof AnnouncementList>, siteUrl: string): RawItem[] {
  const out: RawItem[] = [];
  for (const catalog of body.data?.catalogs ?? []) {
    if (!(catalog.catalogId in BINANCE_CATALOGS)) continue;
    for (const a of catalog.articles) {
      out.push(
        rawItem({
          source_name: 'Binance Announcements',
          username: catalog.catalogName,
          icon: ICON,
          url: `${siteUrl}/en/support/announcement/${encodeURIComponent(a.code)}`,
          content: a.title,
          published_at: new Date(a.releaseDate).toISOString(),
          external_id: a.code,
        }),
      );
    }
  }
  return out.sort((a, b) => Date.parse(a.published_at ?? '') - Date.parse(b.published_at ?? ''));
}

export interface BinanceAnnouncementsOptions {
  /** The list endpoint, e.g. https://www.binance.com/bapi/composite/v1/public/cms/article/list/query */
  url: string;
  intervalMs: number;
  maxBackoffMs?: number;
  fetch?: typeof fetch;
}

/**
 * Polls Binance's public announcement list (new listings, delistings). Articles already seen are skipped
 * here; the store's unique (source, external id) catches any that slip through a restart.
 */
export class BinanceAnnouncementsSource implements NewsSource {
  readonly name = 'binance-announcements' as const;

  constructor(private readonly o: BinanceAnnouncementsOptions) {}

  start(ctx: SourceContext): Disposer {
    const seen = new Set<string>();
    const endpoint = new URL(this.o.url);
    if (!endpoint.searchParams.has('type')) endpoint.searchParams.set('type', '1');
    if (!endpoint.searchParams.has('pageNo')) endpoint.searchParams.set('pageNo', '1');
    if (!endpoint.searchParams.has('pageSize')) endpoint.searchParams.set('pageSize', '20');
    const site = `${endpoint.protocol}//${endpoint.host}`;
    return startPolling({
      clock: ctx.clock,
      intervalMs: this.o.intervalMs,
      maxBackoffMs: this.o.maxBackoffMs ?? 15 * 60_000,
      run: async (signal, first) => {
        const res = await fetchSource(endpoint, {
          http: this.o.fetch,
          clock: ctx.clock,
          who: 'Binance',
          headers: { accept: 'application/json' },
          signal,
          timeoutMs: 15_000,
          retryOn: [429, 418],
          retryDefaultMs: 60_000,
        });
        const body = AnnouncementList.parse(await res.json());
        if (!body.success || body.code !== '000000') throw new Error(`Binance answered code ${body.code}`);
        for (const item of announcementItems(body, site)) {
          if (item.external_id === null || seen.has(item.external_id)) continue;
          seen.add(item.external_id);
          // The first answer lists what was announced before start: shown, never traded (backlog).
          await ctx.emit(first ? { ...item, backlog: true } : item);
        }
      },
      onSuccess: () => ctx.setState('live'),
      onFailure: (err, failures, retryIn) => {
        ctx.log.warn({ failures, retryIn, err: (err as Error).message }, 'Binance announcements poll failed');
        ctx.setState('degraded', (err as Error).message);
      },
    });
  }
}
