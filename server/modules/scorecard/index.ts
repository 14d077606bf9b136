import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { systemClock, type Clock } from '../market/clock';
import { hiddenSources } from '../news/viewer';
import { CalibrationRepo } from './calibration.repo';
import { registerCalibrationRoutes } from './calibration.routes';
import { CalibrationService } from './calibration.service';
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
    /** The impact calibration: fitted from the recorded moves, applied to the news module's scores. */
    impactCalibration: CalibrationService;
  }
}

const DAY_MS = 86_400_000;

/**
 * The scorecard module: records the price of each asset of every completed signal at arrival and 1, 5
 * and 30 minutes later, catches up at start on what fell due while no process was running, and serves
 * `GET /signals/scorecard`; and from those prices, the impact calibration (`GET /analysis/calibration`).
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

    // Every process scores with the latest stored fit, and loads the next one when it is announced.
    const calibration = new CalibrationService({
      repo: new CalibrationRepo(app.database.db),
      market: app.market,
      clock,
      minSamples: app.config.IMPACT_CALIBRATION_MIN_SAMPLES,
      apply: (calibrator) => app.news.setImpactCalibration(calibrator),
      announce: (fit) =>
        app.bus.publish('impact.calibrated', {
          priceSource: fit.priceSource,
          fittedAt: fit.fittedAt.toISOString(),
        }),
    });
    const calibrationFailed = (err: unknown) => log.warn({ err }, 'impact calibration failed');
    await calibration.load().catch(calibrationFailed);
    const unsubscribeCalibrated = app.bus.subscribe('impact.calibrated', (e) => {
      if (e.priceSource === app.market.kind) calibration.load().catch(calibrationFailed);
    });
    // One process fits once a day, and at start when no fit is stored or the stored one is a day old (a
    // process restarted more often than daily still refreshes it); none on simulated prices.
    let daily: NodeJS.Timeout | undefined;
    const noLease = async () => undefined;
    const releaseCalibration =
      calibration.offReason !== null
        ? noLease
        : await app.leases.hold('impact-calibration', {
            async start() {
              daily = setInterval(() => void calibration.refit().catch(calibrationFailed), DAY_MS);
              daily.unref();
              const fit = await calibration.refit().catch(calibrationFailed);
              if (fit) log.info({ types: fit.types.length }, 'impact calibration fitted');
            },
            stop: () => clearInterval(daily),
          });

    app.decorate('snapshots', snapshots);
    app.decorate('impactCalibration', calibration);
    app.decorate('scorecardPrices', (ids: readonly number[]) => repo.pricesOf(ids));
    registerCalibrationRoutes(app, calibration);
    registerScorecardRoutes(app, {
      service: new ScorecardService({ repo, market: app.market, clock }),
      hiddenFor: hiddenSources(app),
    });
    app.addHook('onClose', async () => {
      unsubscribeCalibrated();
      await releaseCalibration();
      await release();
      await snapshots.stop();
    });
  },
  { name: 'scorecard', dependencies: ['market', 'news'] },
);
