import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { loadSplit, type LabelledItem } from './dataset';
import { detectEvent } from './events';
import { featurize } from './features';
import { IMPACT_MODEL_FILE } from './impact-model';
import { DEFAULT_IMPACT_OPTIONS, trainImpactModel } from './impact-training';
import { WEIGHTS_FILE } from './local-analyzer';
import {
  DEFAULT_TRAIN_OPTIONS,
  trainModel,
  type Example,
  type ModelWeights,
  type TrainOptions,
} from './model';
import { normalizeText } from './normalize';

/**
 * `npm run train:analysis`: trains the sentiment model on data/train.jsonl and the impact model on it and
 * data/train-impact.jsonl, and writes weights.json and impact-model.json. Deterministic: the same data and options give
 * byte-identical files.
 */
export function toExample(item: LabelledItem): Example {
  const text = normalizeText(item.text);
  return { features: featurize(text, detectEvent(text)), label: item.sentiment };
}

export function trainFromItems(
  items: readonly LabelledItem[],
  opts: TrainOptions = DEFAULT_TRAIN_OPTIONS,
): ModelWeights {
  return trainModel(items.map(toExample), opts);
}

/** JSON as the repository's Prettier formats it, so `npm run check` passes on a fresh train. */
export async function serializeJson(value: unknown, file: string): Promise<string> {
  const options = (await resolveConfig(file)) ?? {};
  return format(JSON.stringify(value), { ...options, parser: 'json' });
}

export const serializeWeights = (weights: ModelWeights) => serializeJson(weights, WEIGHTS_FILE);

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const started = performance.now();
  const items = loadSplit('train');
  const weights = trainFromItems(items);
  writeFileSync(WEIGHTS_FILE, await serializeWeights(weights));
  const impact = trainImpactModel(items, DEFAULT_IMPACT_OPTIONS, loadSplit('train-impact'));
  writeFileSync(IMPACT_MODEL_FILE, await serializeJson(impact, IMPACT_MODEL_FILE));
  const ms = Math.round(performance.now() - started);
  console.log(
    `trained on ${items.length} items in ${ms} ms: sentiment (${Object.keys(weights.weights).length} features) → ${WEIGHTS_FILE}; ` +
      `impact (${impact.trees.length} trees over ${impact.features.length} columns) → ${IMPACT_MODEL_FILE}`,
  );
}
