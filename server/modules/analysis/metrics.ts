import type { Sentiment } from '../../../src/contracts/analysis';

/** Classification and tagging figures for `eval.ts` (and the tests that check them). */
export const LABELS: readonly Sentiment[] = ['positive', 'negative', 'neutral'];

export interface SentimentFigures {
  n: number;
  accuracy: number;
  macroF1: number;
  recall: Record<Sentiment, number>;
  precision: Record<Sentiment, number>;
  /** confusion[gold][predicted] */
  confusion: Record<Sentiment, Record<Sentiment, number>>;
}

export function sentimentFigures(
  gold: readonly Sentiment[],
  predicted: readonly Sentiment[],
): SentimentFigures {
  const zero = (): Record<Sentiment, number> => ({ positive: 0, negative: 0, neutral: 0 });
  const confusion = { positive: zero(), negative: zero(), neutral: zero() };
  let correct = 0;
  gold.forEach((g, i) => {
    const p = predicted[i] ?? 'neutral';
    confusion[g][p] += 1;
    if (g === p) correct += 1;
  });
  const recall = zero();
  const precision = zero();
  let f1Sum = 0;
  for (const c of LABELS) {
    const tp = confusion[c][c];
    const goldN = LABELS.reduce((s, p) => s + confusion[c][p], 0);
    const predN = LABELS.reduce((s, g) => s + confusion[g][c], 0);
    recall[c] = goldN === 0 ? 0 : tp / goldN;
    precision[c] = predN === 0 ? 0 : tp / predN;
    const f1 =
      recall[c] + precision[c] === 0 ? 0 : (2 * recall[c] * precision[c]) / (recall[c] + precision[c]);
    f1Sum += f1;
  }
  return {
    n: gold.length,
    accuracy: gold.length === 0 ? 0 : correct / gold.length,
    macroF1: f1Sum / LABELS.length,
    recall,
    precision,
    confusion,
  };
}

/** Micro-averaged over (item, ticker) pairs. */
export function assetFigures(
  gold: readonly (readonly string[])[],
  predicted: readonly (readonly string[])[],
) {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  gold.forEach((g, i) => {
    const p = new Set(predicted[i] ?? []);
    const want = new Set(g);
    for (const t of p)
      if (want.has(t)) tp += 1;
      else fp += 1;
    for (const t of want) if (!p.has(t)) fn += 1;
  });
  return { precision: tp + fp === 0 ? 1 : tp / (tp + fp), recall: tp + fn === 0 ? 1 : tp / (tp + fn) };
}

function ranks(xs: readonly number[]): number[] {
  const order = xs.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
  const r = new Array<number>(xs.length).fill(0);
  for (let i = 0; i < order.length;) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]?.[0] === order[i]?.[0]) j += 1;
    for (let k = i; k <= j; k++) r[order[k]?.[1] ?? 0] = (i + j) / 2;
    i = j + 1;
  }
  return r;
}

/** Spearman's rank correlation. */
export function spearman(a: readonly number[], b: readonly number[]): number {
  const ra = ranks(a);
  const rb = ranks(b);
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const ma = mean(ra);
  const mb = mean(rb);
  let num = 0;
  let da = 0;
  let db = 0;
  ra.forEach((x, i) => {
    const y = rb[i] ?? 0;
    num += (x - ma) * (y - mb);
    da += (x - ma) ** 2;
    db += (y - mb) ** 2;
  });
  return da === 0 || db === 0 ? 0 : num / Math.sqrt(da * db);
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}
