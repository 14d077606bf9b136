import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { SourceState, StreamStatus } from '../../../src/contracts/signals';
import { createAnalyzer } from '../analysis/analysis.service';
import { registerArticleRoutes } from './articles.routes';
import { registerMediaRoutes } from './media.routes';
import { NewsRepo } from './news.repo';
import { registerNewsRoutes } from './news.routes';
import { lockedAdmission, NewsService } from './news.service';
import { PgLeases } from '../../plugins/leases';
import { keepNewsWarm, warmNews } from '../../warm';
import { every, systemClock, type Clock, type Disposer } from './news.types';
import { ImageCache } from './proxy/image-cache';
import { ImageProxy } from './proxy/image-proxy';
import { SignalStream } from './signal-stream';
import { SourceManager } from './source-manager';
import { SourceLags } from './source-receipts';
import { premiumViewer, viewerId } from './viewer';
import { buildSources } from './sources';
import { TelegramHandoff } from './sources/telegram-source';

declare module 'fastify' {
  interface FastifyInstance {
    /** The signal pipeline (ingest, history) for other modules (rules). */
    news: NewsService;
    /** Each source's lag from publication to arrival (admin, health). */
    newsSources: SourceLags;
    /** Where the Telegram bot, when it runs, hands the channel posts it reads to the news source. */
    telegramHandoff: TelegramHandoff;
  }
}

/** How health reports a source: its name, marked when it is failing. */
const healthName = (s: SourceState) => (s.state === 'degraded' ? `${s.name} (degraded)` : s.name);
/** How often the process running the sources repeats their states on the bus. */
const STATES_EVERY_MS = 5_000;
/** How often each process reads the sources' lag figures for health. */
const LAGS_EVERY_MS = 30_000;
/** How often the worker running the sources looks for stored items still waiting for their analysis. */
const SWEEP_EVERY_MS = 5_000;

/**
 * The news module: starts the configured sources, runs every item through the pipeline (normalise,
 * dedupe, cluster, store, analyse, price), and serves history, the webhook, the SSE stream, the bundled
 * media and the image proxy.
 */
export default fp(
  async function newsModule(app: FastifyInstance, opts: { clock?: Clock }) {
    const clock = opts.clock ?? systemClock;
    const log = app.log.child({ module: 'news' });
    const analyzer = createAnalyzer(app.config, { log });
    await warmNews(app, analyzer, log);
    app.health.report('analyzer', analyzer.kind);
    const unwatch = app.health.watch('analyzer', () => analyzer.problem());
    const prices = app.prices;
    const service = new NewsService({
      repo: new NewsRepo(app.database.db),
      analyzer,
      bus: app.bus,
      prices,
      clock,
      log,
      analyseHere: app.config.ROLE !== 'api',
      premiumSources: new Set(app.config.PREMIUM_NEWS_SOURCES),
      // On PostgreSQL several processes may ingest (api nodes take the webhook, a worker polls).
      ...(app.database.driver === 'postgres'
        ? {
            exclusive: lockedAdmission(
              app.database.db,
              PgLeases.keyOf(app.config.REDIS_PREFIX, 'news-ingest'),
            ),
          }
        : {}),
    });
    // Every headline admitted or analysed here runs the text paths; in a quiet spell, bundled items do.
    const stopWarm = keepNewsWarm(app, analyzer, () => {
      const { created, clustered, duplicates, analysed } = service.stats;
      return created + clustered + duplicates + analysed;
    });
    const stream = new SignalStream({ clock, onDrop: () => log.info('slow stream client dropped') });
    // What every process says about the sources: the states the process running them last published.
    let states: SourceState[] = app.config.NEWS_SOURCES.map((name) => ({
      name,
      state: 'degraded',
      detail: 'starting',
    }));
    const lags = new SourceLags({
      repo: new NewsRepo(app.database.db),
      clock,
      log,
      thresholdMs: app.config.SOURCE_LAG_DEGRADED_SECONDS * 1000,
      states: () => states,
    });
    // A source late after publication is degraded too, however well it answers.
    const reportNews = () => {
      const late = lags.laggingNames();
      app.health.report(
        'news',
        states.map((s) =>
          late.has(s.name) && s.state !== 'degraded' ? `${s.name} (degraded)` : healthName(s),
        ),
      );
    };
    const unwatchLags = app.health.watch('news-lag', () => lags.problem());
    const statesChanged = (next: SourceState[]) => {
      states = next;
      reportNews();
      stream.status((cursor) => status(cursor, 0));
    };
    const publishStates = () =>
      void app.bus.publish('news.sources', { sources: sources.list() }).catch(() => undefined);
    // The Telegram bot, when it runs here, reads the bot's updates and hands the channel posts over.
    const telegramHandoff = new TelegramHandoff();
    app.decorate('telegramHandoff', telegramHandoff);
    const sources = new SourceManager(buildSources(app.config, { telegram: telegramHandoff }), {
      clock,
      log,
      ingest: (source, item) => service.ingest(source, item),
      onChange: publishStates,
    });
    const status = (_cursor: number, resumed: number): StreamStatus => ({
      connected: true,
      sources: states,
      analyzer: analyzer.kind,
      heartbeat_ms: stream.heartbeatMs,
      resumed,
    });

    stream.start(await service.headRev());
    // The public stream leaves out the items of premium sources; Premium accounts get them in the history.
    const premiumSources = new Set<string>(app.config.PREMIUM_NEWS_SOURCES);
    const unsubscribe = app.bus.subscribe('signal.published', ({ rev, signal }) => {
      if (!premiumSources.has(signal.source)) stream.publish(rev, signal);
    });
    const unsubscribeStates = app.bus.subscribe('news.sources', (event) => statesChanged(event.sources));

    const cache = new ImageCache(
      path.join(app.config.DATA_DIR, 'image-cache'),
      app.config.PROXY_CACHE_MB * 1024 * 1024,
      24 * 3600_000,
      () => clock.now(),
    );
    await cache.open();
    const proxy = new ImageProxy({ cache, clock });

    app.decorate('news', service);
    app.decorate('newsSources', lags);
    const refreshLags = () => void lags.refresh().then(reportNews);
    const stopLags = every(clock, LAGS_EVERY_MS, refreshLags);
    registerNewsRoutes(app, {
      service,
      lags,
      stream,
      status,
      webhook: { enabled: app.config.NEWS_SOURCES.includes('webhook'), token: app.config.INGEST_TOKEN },
      premiumSources: [...premiumSources],
      viewerIsPremium: premiumViewer(app),
      viewerId: viewerId(app),
      feedFilters: app.feedFilters,
    });
    registerMediaRoutes(app, proxy);
    registerArticleRoutes(app);
    // An api node clusters the webhook's items too: it starts with the recent stories, and each admission
    // reads what the other processes stored since (lockedAdmission).
    if (app.config.ROLE === 'api') {
      const warmed = await service.warmUp();
      if (warmed > 0) log.info({ stories: warmed }, 'recent stories loaded for clustering');
    }
    // One process at a time runs the pollers (and so the ingest lock and the story window they share).
    // Winning the lease is also when analyses left unfinished by a process that died are taken up.
    const running: Disposer[] = [];
    const releaseSources = await app.leases.hold('news-sources', {
      async start() {
        const warmed = await service.warmUp();
        if (warmed > 0) log.info({ stories: warmed }, 'recent stories loaded for clustering');
        const resumed = await service.resumeUnfinished();
        if (resumed > 0) log.info({ signals: resumed }, 'unfinished analyses re-queued');
        sources.start();
        publishStates();
        const sweep = () =>
          void service.sweep().catch((err: unknown) => log.warn({ err }, 'analysis sweep failed'));
        running.push(
          // Processes that start later hear the states within a few seconds.
          every(clock, STATES_EVERY_MS, publishStates),
          // Items api nodes stored; the timer also takes up any whose message the bus lost.
          app.bus.subscribe('news.stored', sweep),
          every(clock, SWEEP_EVERY_MS, sweep),
        );
      },
      stop() {
        for (const dispose of running.splice(0)) dispose();
        sources.stop();
      },
    });

    app.addHook('preClose', async () => {
      await releaseSources();
      stream.close();
    });
    app.addHook('onClose', async () => {
      stopWarm();
      unwatch();
      unwatchLags();
      stopLags();
      unsubscribe();
      unsubscribeStates();
      await service.close();
      await analyzer.close();
    });
  },
  { name: 'news', dependencies: ['market', 'users'] },
);
