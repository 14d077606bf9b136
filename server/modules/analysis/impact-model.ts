import { readFileSync } from 'node:fs';
import { fromRoot } from '../../paths';
import { predict, type Ensemble } from './boosted-trees';
import type { ImpactInput } from './impact';
import { IMPACT_FEATURES, impactFeatures } from './impact-features';

/**
 * Impact 0-100 from the learned model (docs/analysis.md "How impact is made"): boosted trees over the
 * columns of `impact-features.ts`, starting from the rules' estimate, then a monotone stretch onto the
 * labels' spread, and a high-band classifier that lifts an item it is sure of to the alert threshold; fitted by `npm run train:analysis` (`impact-training.ts`) on the impact labels of
 * data/train.jsonl and shipped as `impact-model.json`.
 */
export const IMPACT_MODEL_FILE = fromRoot('server/modules/analysis/impact-model.json');

export interface ImpactModel extends Ensemble {
  /** Increasing knots [prediction, score]: the trees' output mapped onto the labels' spread. */
  stretch: [number, number][];
  /** Trees fitted to "labelled 80 or more" over the same columns: a probability of the high band. */
  band: Pick<Ensemble, 'base' | 'learningRate' | 'trees'>;
  bandThreshold: number;
}

export function loadImpactModel(file = IMPACT_MODEL_FILE): ImpactModel {
  let model: ImpactModel;
  try {
    model = JSON.parse(readFileSync(file, 'utf8')) as ImpactModel;
  } catch (err) {
    throw new Error(`Cannot read the impact model at ${file}: run npm run train:analysis`, { cause: err });
  }
  if (model.features.join(',') !== IMPACT_FEATURES.join(','))
    throw new Error(`The impact model at ${file} was trained on other features: run npm run train:analysis`);
  return model;
}

/** Piecewise-linear through the knots, flat beyond the ends. */
export function stretched(knots: readonly [number, number][], x: number): number {
  const first = knots[0];
  if (first === undefined) return x;
  if (x <= first[0]) return first[1];
  for (let i = 1; i < knots.length; i++) {
    const [x1, y1] = knots[i] ?? first;
    const [x0, y0] = knots[i - 1] ?? first;
    if (x <= x1) return y0 + ((x - x0) / (x1 - x0)) * (y1 - y0);
  }
  return knots[knots.length - 1]?.[1] ?? x;
}

export const ALERT_THRESHOLD = 80;

const bandModels = new WeakMap<ImpactModel, Ensemble>();

export function impactScoreOf(model: ImpactModel, input: ImpactInput): number {
  const x = impactFeatures(input);
  const score = Math.max(0, Math.min(100, Math.round(stretched(model.stretch, predict(model, x)))));
  let band = bandModels.get(model);
  if (band === undefined) {
    band = { ...model, ...model.band, offset: undefined };
    bandModels.set(model, band);
  }
  return predict(band, x) >= model.bandThreshold ? Math.max(score, ALERT_THRESHOLD) : score;
}
