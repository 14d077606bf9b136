import type { NewsSourceKind } from '../../../../src/contracts/signals';
import type { Config } from '../../../config';
import type { Disposer, NewsSource, SourceContext } from '../news.types';
import { BinanceAnnouncementsSource } from './binance-source';
import { ReplaySource } from './replay-source';

/** How many already-played items a fresh start feeds at once, with their original times. */
export const REPLAY_BACKFILL = 50;
import { RssSource } from './rss-source';
import { TelegramSource, type TelegramHandoff } from './telegram-source';
import { XSource } from './x-source';

export type SourcesConfig = Pick<
  Config,
  | 'NEWS_SOURCES'
  | 'RSS_FEEDS'
  | 'REPLAY_INTERVAL_MS'
  | 'NEWS_POLL_MS'
  | 'BINANCE_ANNOUNCEMENTS_URL'
  | 'X_API_URL'
  | 'X_BEARER_TOKEN'
  | 'TELEGRAM_API_URL'
  | 'TELEGRAM_BOT_TOKEN'
  | 'INGEST_TOKEN'
>;

/** A source that only reports a state: the webhook (fed by its route) or one missing credentials. */
class PassiveSource implements NewsSource {
  constructor(
    readonly name: NewsSourceKind,
    private readonly state: 'live' | 'degraded',
    private readonly detail?: string,
  ) {}

  start(ctx: SourceContext): Disposer {
    ctx.setState(this.state, this.detail);
    return () => undefined;
  }
}

/** The sources `NEWS_SOURCES` selects, built from the configuration. */
export function buildSources(config: SourcesConfig, opts: { telegram?: TelegramHandoff } = {}): NewsSource[] {
  return config.NEWS_SOURCES.map((name): NewsSource => {
    switch (name) {
      case 'replay':
        return new ReplaySource({ intervalMs: config.REPLAY_INTERVAL_MS, backfill: REPLAY_BACKFILL });
      case 'rss':
        return new RssSource({ feeds: config.RSS_FEEDS, intervalMs: config.NEWS_POLL_MS });
      case 'binance-announcements':
        return new BinanceAnnouncementsSource({
          url: config.BINANCE_ANNOUNCEMENTS_URL,
          intervalMs: config.NEWS_POLL_MS,
        });
      case 'webhook':
        return config.INGEST_TOKEN === undefined
          ? new PassiveSource('webhook', 'degraded', 'INGEST_TOKEN is not set')
          : new PassiveSource('webhook', 'live');
      case 'x':
        return config.X_BEARER_TOKEN === undefined
          ? new PassiveSource('x', 'degraded', 'X_BEARER_TOKEN is not set')
          : new XSource({ baseUrl: config.X_API_URL, bearerToken: config.X_BEARER_TOKEN });
      case 'telegram':
        return config.TELEGRAM_BOT_TOKEN === undefined
          ? new PassiveSource('telegram', 'degraded', 'TELEGRAM_BOT_TOKEN is not set')
          : new TelegramSource({
              baseUrl: config.TELEGRAM_API_URL,
              botToken: config.TELEGRAM_BOT_TOKEN,
              intervalMs: 1000,
              ...(opts.telegram === undefined ? {} : { handoff: opts.telegram }),
            });
    }
  });
}
