import { describe, expect, it } from 'vitest';
import { curveAt, isotonic } from './isotonic-fit';

const ys = (steps: { y: number }[]) => steps.map((s) => s.y);

describe('isotonic', () => {
  it('keeps a rising series as it is and answers in increasing order', () => {
    const steps = isotonic([
      { x: 3, y: 3 },
      { x: 1, y: 1 },
      { x: 2, y: 2 },
    ]);
    expect(steps).toEqual([
      { x: 1, y: 1, w: 1 },
      { x: 2, y: 2, w: 1 },
      { x: 3, y: 3, w: 1 },
    ]);
  });

  it('pools adjacent violators into their mean, so the fit never falls', () => {
    const steps = isotonic([
      { x: 1, y: 1 },
      { x: 2, y: 5 },
      { x: 3, y: 3 },
      { x: 4, y: 1 },
      { x: 5, y: 6 },
    ]);
    expect(ys(steps)).toEqual([1, 3, 6]);
    expect(steps[1]).toEqual({ x: 3, y: 3, w: 3 });
    for (let i = 1; i < steps.length; i++) expect(steps[i]!.y).toBeGreaterThanOrEqual(steps[i - 1]!.y);
  });

  it('gives one value to samples of the same x, even after an earlier merge', () => {
    const steps = isotonic([
      { x: 1, y: 4 },
      { x: 2, y: 2 },
      { x: 2, y: 10 },
    ]);
    // 1 → 4 and 2 → mean(2, 10) = 6 already rise: two steps, the tie pooled.
    expect(steps).toEqual([
      { x: 1, y: 4, w: 1 },
      { x: 2, y: 6, w: 2 },
    ]);
    const merged = isotonic([
      { x: 1, y: 5 },
      { x: 2, y: 1 },
      { x: 2, y: 3 },
      { x: 3, y: 9 },
    ]);
    expect(merged.map((s) => [s.x, s.y])).toEqual([
      [5 / 3, 3],
      [3, 9],
    ]);
  });

  it('weighs each sample by its weight', () => {
    const steps = isotonic([
      { x: 1, y: 10, w: 3 },
      { x: 2, y: 2, w: 1 },
    ]);
    expect(steps).toEqual([{ x: 1.25, y: 8, w: 4 }]);
    // A zero weight counts for nothing.
    expect(isotonic([{ x: 1, y: 10, w: 0 }])).toEqual([]);
  });

  it('fits one point to itself, and nothing to nothing', () => {
    expect(isotonic([{ x: 40, y: 1.5 }])).toEqual([{ x: 40, y: 1.5, w: 1 }]);
    expect(isotonic([])).toEqual([]);
  });

  it('fits values all equal to one flat step', () => {
    const steps = isotonic([10, 20, 30, 40].map((x) => ({ x, y: 2 })));
    expect(steps).toEqual([
      { x: 10, y: 2, w: 1 },
      { x: 20, y: 2, w: 1 },
      { x: 30, y: 2, w: 1 },
      { x: 40, y: 2, w: 1 },
    ]);
    expect(isotonic([5, 4, 3].map((y) => ({ x: 7, y })))).toEqual([{ x: 7, y: 4, w: 3 }]);
  });
});

describe('curveAt', () => {
  const points: [number, number][] = [
    [20, 1],
    [60, 3],
    [80, 7],
  ];

  it('reads between points linearly and flat beyond the ends', () => {
    expect(curveAt(points, 40)).toBe(2);
    expect(curveAt(points, 70)).toBe(5);
    expect(curveAt(points, 0)).toBe(1);
    expect(curveAt(points, 100)).toBe(7);
    expect(curveAt([[50, 2]], 10)).toBe(2);
    expect(curveAt([], 10)).toBeNaN();
  });
});
