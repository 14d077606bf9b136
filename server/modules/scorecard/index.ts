import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { systemClock, type Clock } from '../market/clock';
import { hiddenSources } from '../news/viewer';
import { ScorecardRepo } from './scorecard.repo';
import { registerScorecardRoutes } from './scorecard.routes';
import { ScorecardService } from './scorecard.service';
import { FOLLOW_MS, Snapshots } from './snapshots';

declare module 'fastify' {
  interface FastifyInstance {
    /** The scorecard's price taker (tests drain it). */
    snapshots: Snapshots;
    /** Prices recorded after signals arrived (`signal|asset|horizon_s` → price): the rules' hit rates. */
    scorecardPrices: (signalIds: readonly number[]) => Promise<Map<string, number>>;
  }
}

/**
 * The scorecard module: records the price of each asset of every completed signal at arrival and 1, 5
 * and 30 minutes later, catches up at start on what fell due while no process was running, and serves
 * `GET /signals/scorecard`.
 */
export default fp(
  async function scorecardModule(app: FastifyInstance, opts: { clock?: Clock }) {
    const clock = opts.clock ?? systemClock;
    const log = app.log.child({ module: 'scorecard' });
    const repo = new ScorecardRepo(app.database.db);
    const snapshots = new Snapshots({ repo, market: app.market, clock, log });
    // One process takes the prices; winning the job is also when it catches up on what fell due.
    let unsubscribe: (() => void) | null = null;
    let unsubscribeRetracted: (() => void) | null = null;
    const release = await app.leases.hold('scorecard', {
      async start() {
        snapshots.resume();
        unsubscribe = app.bus.subscribe('signal.published', ({ signal }) => snapshots.follow(signal));
        // A retracted story and its retraction are scored apart from the rest from then on.
        unsubscribeRetracted = app.bus.subscribe('signal.retracted', (e) =>
          repo
            .markRoles([
              { signalId: Number(e.retractedId), role: 'retracted' },
              { signalId: Number(e.retractionId), role: 'retraction' },
            ])
            .catch((err: unknown) => log.warn({ err }, 'retraction not recorded for the scorecard')),
        );
        const now = clock.now();
        const { signals } = await app.news.history(new Date(now - FOLLOW_MS), new Date(now + 1), 5000);
        const followed = await snapshots.catchUp(signals);
        if (followed > 0) log.info({ signals: followed }, 'scorecard prices due followed');
      },
      async stop() {
        unsubscribe?.();
        unsubscribeRetracted?.();
        unsubscribe = null;
        unsubscribeRetracted = null;
        await snapshots.stop();
      },
    });

    app.decorate('snapshots', snapshots);
    app.decorate('scorecardPrices', (ids: readonly number[]) => repo.pricesOf(ids));
    registerScorecardRoutes(app, {
      service: new ScorecardService({ repo, market: app.market, clock }),
      hiddenFor: hiddenSources(app),
    });
    app.addHook('onClose', async () => {
      await release();
      await snapshots.stop();
    });
  },
  { name: 'scorecard', dependencies: ['market', 'news'] },
);
