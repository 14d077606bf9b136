import type { Sentiment } from '../../../src/contracts/analysis';
import { FEATURE_BITS } from './features';

/**
 * A multinomial logistic regression over hashed features: three weights per feature, one per class.
 * Trained by `train.ts` (deterministic: fixed seed, fixed order) and shipped as `weights.json`, which
 * holds only the features seen in training.
 */
export const CLASSES = ['negative', 'neutral', 'positive'] as const satisfies readonly Sentiment[];

export interface ModelWeights {
  version: 1;
  featureBits: number;
  classes: readonly Sentiment[];
  /** Hyper-parameters the weights were trained with. */
  training: TrainOptions & { examples: number };
  /** Feature index → [negative, neutral, positive]. */
  weights: Record<string, [number, number, number]>;
}

export interface TrainOptions {
  epochs: number;
  learningRate: number;
  l2: number;
  seed: number;
  /**
   * Added to the neutral logit at prediction time: without a rule, a headline needs clear words to be
   * read as a move. Chosen by 5-fold cross-validation over train+dev (0 → 0.3 raised CV macro-F1).
   */
  neutralBias?: number;
}

export const DEFAULT_TRAIN_OPTIONS: TrainOptions = {
  epochs: 30,
  learningRate: 0.3,
  l2: 1e-4,
  seed: 7,
  neutralBias: 0.3,
};

export interface Prediction {
  label: Sentiment;
  /** Probabilities in CLASSES order. */
  probs: [number, number, number];
}

function softmax(z: [number, number, number]): [number, number, number] {
  const m = Math.max(z[0], z[1], z[2]);
  const e0 = Math.exp(z[0] - m);
  const e1 = Math.exp(z[1] - m);
  const e2 = Math.exp(z[2] - m);
  const s = e0 + e1 + e2;
  return [e0 / s, e1 / s, e2 / s];
}

function argmax(p: readonly number[]): number {
  let best = 0;
  for (let i = 1; i < p.length; i++) if ((p[i] ?? 0) > (p[best] ?? 0)) best = i;
  return best;
}

export class SentimentModel {
  private readonly table = new Map<number, readonly [number, number, number]>();
  private readonly neutralBias: number;

  constructor(weights: ModelWeights) {
    if (weights.featureBits !== FEATURE_BITS) {
      throw new Error(
        `weights.json was trained with ${weights.featureBits}-bit features; run npm run train:analysis`,
      );
    }
    for (const [k, w] of Object.entries(weights.weights)) this.table.set(Number(k), w);
    this.neutralBias = weights.training.neutralBias ?? 0;
  }

  predict(features: readonly number[]): Prediction {
    const z: [number, number, number] = [0, this.neutralBias, 0];
    for (const f of features) {
      const w = this.table.get(f);
      if (!w) continue;
      z[0] += w[0];
      z[1] += w[1];
      z[2] += w[2];
    }
    const probs = softmax(z);
    return { label: CLASSES[argmax(probs)] ?? 'neutral', probs };
  }
}

/** mulberry32: a small seeded generator, so training shuffles the same way every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Example {
  features: readonly number[];
  label: Sentiment;
}

/** AdaGrad on the cross-entropy with L2; the same examples and options always give the same weights. */
export function trainModel(
  examples: readonly Example[],
  opts: TrainOptions = DEFAULT_TRAIN_OPTIONS,
): ModelWeights {
  const w = new Map<number, Float64Array>();
  const g2 = new Map<number, Float64Array>();
  const row = (m: Map<number, Float64Array>, f: number) => {
    let r = m.get(f);
    if (!r) m.set(f, (r = new Float64Array(3)));
    return r;
  };
  const order = examples.map((_, i) => i);
  const random = rng(opts.seed);
  for (let epoch = 0; epoch < opts.epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j] ?? 0, order[i] ?? 0];
    }
    for (const idx of order) {
      const ex = examples[idx];
      if (!ex) continue;
      const z: [number, number, number] = [0, 0, 0];
      for (const f of ex.features) {
        const r = w.get(f);
        if (r) for (let c = 0; c < 3; c++) z[c as 0 | 1 | 2] += r[c] ?? 0;
      }
      const p = softmax(z);
      const y = CLASSES.indexOf(ex.label as (typeof CLASSES)[number]);
      for (const f of ex.features) {
        const r = row(w, f);
        const acc = row(g2, f);
        for (let c = 0; c < 3; c++) {
          const grad = (p[c] ?? 0) - (c === y ? 1 : 0) + opts.l2 * (r[c] ?? 0);
          acc[c] = (acc[c] ?? 0) + grad * grad;
          r[c] = (r[c] ?? 0) - (opts.learningRate * grad) / Math.sqrt((acc[c] ?? 0) + 1e-8);
        }
      }
    }
  }
  const weights: Record<string, [number, number, number]> = {};
  for (const f of [...w.keys()].sort((a, b) => a - b)) {
    const r = w.get(f);
    if (!r) continue;
    const round = (x: number) => Math.round(x * 1e4) / 1e4;
    weights[String(f)] = [round(r[0] ?? 0), round(r[1] ?? 0), round(r[2] ?? 0)];
  }
  return {
    version: 1,
    featureBits: FEATURE_BITS,
    classes: CLASSES,
    training: { ...opts, examples: examples.length },
    weights,
  };
}
