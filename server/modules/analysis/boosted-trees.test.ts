import { describe, expect, it } from 'vitest';
import { fitEnsemble, predict, type BoostOptions } from './boosted-trees';

const OPTS: BoostOptions = { trees: 80, depth: 3, learningRate: 0.1, minLeaf: 3, subsample: 0.8, seed: 7 };

/** Rows of two columns: y is 10 when a > 0.5, plus 5 when b > 0.5 and a > 0.5 (an interaction). */
function rows(n: number) {
  const X: Float64Array[] = [];
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    const a = ((i * 37) % 100) / 100;
    const b = ((i * 61) % 100) / 100;
    X.push(Float64Array.from([a, b]));
    y.push((a > 0.5 ? 10 : 0) + (a > 0.5 && b > 0.5 ? 5 : 0));
  }
  return { X, y };
}

describe('boosted trees', () => {
  it('learns a step and an interaction, and reads its own JSON back the same', () => {
    const { X, y } = rows(200);
    const model = fitEnsemble(X, y, ['a', 'b'], OPTS);
    const at = (a: number, b: number) => predict(model, [a, b]);
    expect(at(0.2, 0.2)).toBeLessThan(1);
    expect(at(0.8, 0.2)).toBeGreaterThan(9);
    expect(at(0.8, 0.2)).toBeLessThan(11);
    expect(at(0.8, 0.8)).toBeGreaterThan(14);
    const copy = JSON.parse(JSON.stringify(model)) as typeof model;
    expect(predict(copy, [0.8, 0.8])).toBe(at(0.8, 0.8));
  });

  it('is deterministic for a seed and differs with another', () => {
    const { X, y } = rows(120);
    const one = JSON.stringify(fitEnsemble(X, y, ['a', 'b'], OPTS));
    expect(JSON.stringify(fitEnsemble(X, y, ['a', 'b'], OPTS))).toBe(one);
    expect(JSON.stringify(fitEnsemble(X, y, ['a', 'b'], { ...OPTS, seed: 8 }))).not.toBe(one);
  });

  it('starts from an offset column and weighs rows', () => {
    const X = [0, 1, 2, 3, 4, 5, 6, 7].map((v) => Float64Array.from([v, v * 10]));
    const y = X.map((x) => (x[1] ?? 0) + 1);
    const fromOffset = fitEnsemble(X, y, ['v', 'prior'], { ...OPTS, minLeaf: 1 }, { offset: 1 });
    expect(fromOffset.offset).toBe(1);
    expect(predict(fromOffset, [3, 30])).toBeCloseTo(31, 5);
    // One heavy row pulls the start (the weighted mean) towards it.
    const heavy = fitEnsemble(
      X,
      y,
      ['v', 'prior'],
      { ...OPTS, trees: 1 },
      { weights: [1, 1, 1, 1, 1, 1, 1, 93] },
    );
    expect(heavy.base).toBeGreaterThan(60);
  });

  it('refuses targets that do not match the rows', () => {
    expect(() => fitEnsemble([Float64Array.from([1])], [], ['a'], OPTS)).toThrow('one target per row');
  });
});
