import { EventType } from '../../../src/contracts/analysis';
import type { MarketSourceKind } from '../../../src/contracts/market';
import { moveToScore } from '../analysis/impact';
import type { ImpactCalibrator } from '../news/news.types';
import { curveAt, isotonic } from './isotonic-fit';

/** One recorded signal: its event type, the analyzer's raw score, and |move| % on its primary asset. */
export interface CalibrationSample {
  eventType: EventType;
  score: number;
  move: number;
}

/** One event type's fitted curve: realised |move| % on raw score, non-decreasing, as [score, move] pairs. */
export interface TypeCurve {
  eventType: EventType;
  samples: number;
  points: [number, number][];
}

/** A stored fit: every event type's curve and the global ratio of realised to expected moves. */
export interface CalibrationFit {
  priceSource: MarketSourceKind;
  /** The horizon of the moves (seconds after arrival; 5 minutes stands in where 30 are missing). */
  horizonS: number;
  ratio: number;
  fittedAt: Date;
  types: TypeCurve[];
}

const MIN_MOVE = 0.05;
const MAX_MOVE = 100;

/**
 * The expected move (percent over about a day) a score stands for: the inverse of `moveToScore`, found
 * by bisection on ln(move) so that it follows the analyzer's scale whatever its anchors.
 */
export function scoreToMove(score: number): number {
  if (score <= moveToScore(MIN_MOVE)) return MIN_MOVE;
  if (score >= moveToScore(MAX_MOVE)) return MAX_MOVE;
  let lo = Math.log(MIN_MOVE);
  let hi = Math.log(MAX_MOVE);
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (moveToScore(Math.exp(mid)) < score) lo = mid;
    else hi = mid;
  }
  return Math.exp((lo + hi) / 2);
}

const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

/**
 * Fits each event type's isotonic curve of realised |move| on raw score, and the one ratio k of every
 * realised move to what its score expected (the horizon is shorter than the scale's day). Null when
 * there is nothing to fit (no samples, or no move at all).
 */
export function fitCurves(
  samples: readonly CalibrationSample[],
  meta: { priceSource: MarketSourceKind; horizonS: number; fittedAt: Date },
): CalibrationFit | null {
  let realised = 0;
  let expected = 0;
  const byType = new Map<EventType, CalibrationSample[]>();
  for (const s of samples) {
    realised += s.move;
    expected += scoreToMove(s.score);
    const list = byType.get(s.eventType) ?? [];
    list.push(s);
    byType.set(s.eventType, list);
  }
  if (realised <= 0 || expected <= 0) return null;
  const types = [...byType].map(([eventType, list]): TypeCurve => {
    const steps = isotonic(list.map((s) => ({ x: s.score, y: s.move })));
    return { eventType, samples: list.length, points: steps.map((p) => [round4(p.x), round4(p.y)]) };
  });
  types.sort((a, b) => EventType.options.indexOf(a.eventType) - EventType.options.indexOf(b.eventType));
  return { ...meta, ratio: realised / expected, types };
}

/**
 * A raw score of a type as the market made it: `moveToScore(iso(s) / k)`, 0-100, whole. Null below
 * `minSamples` recorded signals of that type (the raw score stands).
 */
export function calibratedScore(
  fit: CalibrationFit,
  minSamples: number,
  eventType: EventType,
  raw: number,
): number | null {
  const curve = fit.types.find((t) => t.eventType === eventType);
  if (curve === undefined || curve.samples < minSamples || fit.ratio <= 0) return null;
  const move = curveAt(curve.points, raw);
  if (!Number.isFinite(move)) return null;
  return Math.round(Math.min(100, Math.max(0, moveToScore(move / fit.ratio))));
}

/** The fit as the news module applies it. */
export function calibratorOf(fit: CalibrationFit, minSamples: number): ImpactCalibrator {
  return (eventType, raw) => calibratedScore(fit, minSamples, eventType, raw);
}
