import {
  CALIBRATION_PROBES,
  CALIBRATION_TEXTS,
  type CalibrationPoint,
  type CalibrationView,
} from '../../../src/contracts/calibration';
import { EventType } from '../../../src/contracts/analysis';
import type { MarketSourceKind } from '../../../src/contracts/market';
import type { Clock } from '../market/clock';
import type { ImpactCalibrator } from '../news/news.types';
import type { CalibrationRepo } from './calibration.repo';
import { calibratorOf, fitCurves, scoreToMove, type CalibrationFit } from './impact-curve';
import { curveAt } from './isotonic-fit';

const DAY_MS = 86_400_000;
/** How far back the samples go, and how many at most (the latest). */
export const CALIBRATION_WINDOW_MS = 90 * DAY_MS;
const MAX_SAMPLES = 100_000;
/** The horizon the moves are measured at (5 minutes where the 30-minute price is missing). */
const HORIZON_S = 1800;
/** A fit younger than this is not redone: a second holder of the daily job, or a restart, skips it. */
const REFIT_AFTER_MS = DAY_MS - 3_600_000;

export interface CalibrationDeps {
  repo: Pick<CalibrationRepo, 'exclusive' | 'latest'>;
  market: { readonly kind: MarketSourceKind };
  clock: Clock;
  minSamples: number;
  /** Hands the fit (or null: raw scores stand) to the news module. */
  apply: (calibrator: ImpactCalibrator | null) => void;
  /** Says on the bus that a fit was stored, so that every process loads it. */
  announce: (fit: CalibrationFit) => Promise<void>;
}

/**
 * The impact calibration's rules: only on the market's own prices, fitted from the scorecard's
 * recorded moves at most once a day across processes, applied by every process from the stored fit.
 */
export class CalibrationService {
  private inForce: Date | null = null;

  constructor(private readonly deps: CalibrationDeps) {}

  /** When the fit this process scores with was made (null: none, the raw scores stand). */
  get applied(): Date | null {
    return this.inForce;
  }

  private apply(fit: CalibrationFit | null): void {
    // Two loads under way at once may end in either order: an older fit never replaces a newer one.
    if (fit !== null && this.inForce !== null && fit.fittedAt < this.inForce) return;
    this.inForce = fit?.fittedAt ?? null;
    this.deps.apply(fit === null ? null : calibratorOf(fit, this.deps.minSamples));
  }

  /** Why calibration is off here, or null when it is on. */
  get offReason(): string | null {
    return this.deps.market.kind === 'binance' ? null : CALIBRATION_TEXTS.simulated;
  }

  /**
   * Fits again from the recorded outcomes unless a fit younger than `maxAgeMs` (nearly a day) is stored:
   * the daily job and a start both call it, and whichever process comes second finds the fit made. Stores,
   * applies and announces a new fit; answers it, or null when none was made.
   */
  async refit(maxAgeMs = REFIT_AFTER_MS): Promise<CalibrationFit | null> {
    if (this.offReason !== null) return null;
    const priceSource = this.deps.market.kind;
    const fit = await this.deps.repo.exclusive(async ({ store, scores }) => {
      const now = this.deps.clock.now();
      const stored = await store.latest(priceSource);
      if (stored !== null && now - stored.fittedAt.getTime() < maxAgeMs) return null;
      const since = new Date(now - CALIBRATION_WINDOW_MS);
      const samples = await scores.calibrationSamples(priceSource, since, MAX_SAMPLES);
      const made = fitCurves(samples, { priceSource, horizonS: HORIZON_S, fittedAt: new Date(now) });
      if (made !== null) await store.replace(made);
      return made;
    });
    if (fit === null) return null;
    this.apply(fit);
    await this.deps.announce(fit);
    return fit;
  }

  /** Applies the latest stored fit of this market source (none on the simulator). */
  async load(): Promise<CalibrationFit | null> {
    if (this.offReason !== null) {
      this.apply(null);
      return null;
    }
    const fit = await this.deps.repo.latest(this.deps.market.kind);
    this.apply(fit);
    return fit;
  }

  /** What `GET /api/analysis/calibration` answers. */
  async view(): Promise<CalibrationView> {
    const minSamples = this.deps.minSamples;
    const reason = this.offReason;
    if (reason !== null) {
      return {
        state: 'off',
        reason,
        min_samples: minSamples,
        fitted_at: null,
        horizon_s: null,
        ratio: null,
        types: [],
      };
    }
    const fit = await this.deps.repo.latest(this.deps.market.kind);
    const point = (points: readonly (readonly [number, number])[], score: number): CalibrationPoint => ({
      score,
      predicted_move: round(scoreToMove(score) * (fit?.ratio ?? 0)),
      realised_move: round(curveAt(points, score)),
    });
    const types = EventType.options.map((eventType) => {
      const curve = fit?.types.find((t) => t.eventType === eventType);
      const points = curve?.points ?? [];
      return {
        event_type: eventType,
        samples: curve?.samples ?? 0,
        active: curve !== undefined && curve.samples >= minSamples,
        probes: points.length === 0 ? [] : CALIBRATION_PROBES.map((s) => point(points, s)),
        points: points.map(([score]) => point(points, score)),
      };
    });
    return {
      state: 'on',
      min_samples: minSamples,
      fitted_at: fit?.fittedAt.toISOString() ?? null,
      horizon_s: fit?.horizonS ?? null,
      ratio: fit === null ? null : round(fit.ratio),
      types,
    };
  }
}

const round = (n: number) => Math.round(n * 10_000) / 10_000;
