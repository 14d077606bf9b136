import type { Disposer, NewsSource, RawItem, SourceContext } from '../news.types';
import { rawItem } from '../news.types';
import { REPLAY_AUTHORS, REPLAY_ITEMS, replayContent, type ReplayEntry } from './replay-data';

export const ASSET_BASE = '/api/news/assets';
export const ARTICLE_BASE = '/api/news/articles';

/** The bundled items as raw items; icons, media and the article link point at this server. */
export function replayItem(entry: ReplayEntry, index: number, loop: number, now: number): RawItem {
  const author = REPLAY_AUTHORS[entry.author];
  const quote = entry.quote;
  return rawItem({
    source_name: author.source_name,
    username: author.username,
    icon: `${ASSET_BASE}/icons/${author.icon}`,
    url: `${ARTICLE_BASE}/${entry.slug}`,
    content: replayContent(entry),
    media_urls: (entry.media ?? []).map((m) => `${ASSET_BASE}/media/${m}`),
    quote:
      quote === undefined
        ? null
        : {
            source_name: REPLAY_AUTHORS[quote.author].source_name,
            username: REPLAY_AUTHORS[quote.author].username,
            icon: `${ASSET_BASE}/icons/${REPLAY_AUTHORS[quote.author].icon}`,
            content: quote.text,
            media_urls: [],
          },
    published_at: new Date(now).toISOString(),
    external_id: `replay-${loop}-${index}`,
  });
}

export interface ReplayOptions {
  /** Mean milliseconds between items; each gap varies ±40% so the feed does not tick like a clock. */
  intervalMs: number;
  items?: readonly ReplayEntry[];
  /**
   * At start, feed this many of the items the loop played before now, oldest first, with their
   * original times (so the feed is full at once, and no rule takes them for fresh news).
   */
  backfill?: number;
}

/** A gap in [0.6, 1.4] × interval, the same for the same step. */
export function gapMs(intervalMs: number, step: number): number {
  const frac = (step * 0.6180339887) % 1;
  return Math.max(1, Math.round(intervalMs * (0.6 + 0.8 * frac)));
}

/**
 * Plays the bundled items in a loop. The position follows the clock (step = now / interval), so a
 * restart continues where the feed would be rather than from the top, and each pass gets new ids.
 */
export class ReplaySource implements NewsSource {
  readonly name = 'replay' as const;

  constructor(private readonly o: ReplayOptions) {}

  start(ctx: SourceContext): Disposer {
    const items = this.o.items ?? REPLAY_ITEMS;
    let step = Math.floor(ctx.clock.now() / this.o.intervalMs);
    let stopped = false;
    let cancel: Disposer = () => undefined;
    ctx.setState('replay');
    const backfill = Math.min(this.o.backfill ?? 0, step);
    for (let past = step - backfill; past < step && items.length > 0; past += 1) {
      const at = past * this.o.intervalMs;
      const item = replayItem(
        items[past % items.length] as ReplayEntry,
        past % items.length,
        Math.floor(past / items.length),
        at,
      );
      ctx.emit({ ...item, received_at: new Date(at).toISOString() }).catch((err: unknown) => {
        ctx.log.warn({ err }, 'replay backfill item not ingested');
      });
    }
    const next = (): void => {
      if (stopped || items.length === 0) return;
      const index = step % items.length;
      const loop = Math.floor(step / items.length);
      const entry = items[index] as ReplayEntry;
      ctx.emit(replayItem(entry, index, loop, ctx.clock.now())).catch((err: unknown) => {
        ctx.log.warn({ err }, 'replay item not ingested');
      });
      step += 1;
      cancel = ctx.clock.setTimer(next, gapMs(this.o.intervalMs, step));
    };
    cancel = ctx.clock.setTimer(next, 0);
    return () => {
      stopped = true;
      cancel();
    };
  }
}
