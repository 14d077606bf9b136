import { describe, expect, it } from 'vitest';
import { moveToScore } from '../analysis/impact';
import { calibratedScore, fitCurves, scoreToMove, type CalibrationSample } from './impact-curve';

const meta = { priceSource: 'binance' as const, horizonS: 1800, fittedAt: new Date(0) };

describe('scoreToMove', () => {
  it('inverts the analyzer’s scale', () => {
    for (const move of [0.3, 1, 2.5, 4, 8, 25]) expect(scoreToMove(moveToScore(move))).toBeCloseTo(move, 6);
    expect(scoreToMove(0)).toBe(0.05);
    expect(scoreToMove(100)).toBe(100);
  });
});

describe('fitCurves and calibratedScore', () => {
  // Both types moved a fifth of what they promised, except listings: four times that.
  const samples: CalibrationSample[] = [20, 40, 60, 80].flatMap((score) => [
    { eventType: 'listing', score, move: scoreToMove(score) * 0.8 },
    { eventType: 'partnership', score, move: scoreToMove(score) * 0.2 },
    { eventType: 'hack', score, move: scoreToMove(score) * 0.2 },
  ]);

  it('fits one ratio over every sample and a curve per type, ordered as the event types', () => {
    const fit = fitCurves(samples, meta);
    if (fit === null) throw new Error('no fit');
    expect(fit.types.map((t) => [t.eventType, t.samples])).toEqual([
      ['listing', 4],
      ['hack', 4],
      ['partnership', 4],
    ]);
    expect(fit.ratio).toBeCloseTo(1.2 / 3, 6);
  });

  it('moves a score toward what its type did, and leaves a type short of samples as it was', () => {
    const fit = fitCurves(samples, meta);
    if (fit === null) throw new Error('no fit');
    // Listings made twice the average share: their scores rise; partnerships half: theirs fall.
    expect(calibratedScore(fit, 4, 'listing', 60)).toBe(Math.round(moveToScore(scoreToMove(60) * 2)));
    expect(calibratedScore(fit, 4, 'partnership', 60)).toBe(Math.round(moveToScore(scoreToMove(60) / 2)));
    expect(calibratedScore(fit, 5, 'listing', 60)).toBeNull();
    expect(calibratedScore(fit, 1, 'etf', 60)).toBeNull();
    // Clamped to the scale.
    expect(calibratedScore(fit, 4, 'listing', 100)).toBeLessThanOrEqual(100);
    expect(calibratedScore(fit, 4, 'partnership', 0)).toBeGreaterThanOrEqual(0);
  });

  it('fits nothing from no samples or no move', () => {
    expect(fitCurves([], meta)).toBeNull();
    expect(fitCurves([{ eventType: 'listing', score: 50, move: 0 }], meta)).toBeNull();
  });
});
