import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { loadSplit, type LabelledItem } from './dataset';
import { detectEvent } from './events';
import { featurize } from './features';
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
 * `npm run train:analysis`: trains the sentiment model on data/train.jsonl only and writes
 * weights.json. Deterministic: the same data and options give byte-identical weights.
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

/** The weights as the repository's Prettier formats JSON, so `npm run check` passes on a fresh train. */
export async function serializeWeights(weights: ModelWeights): Promise<string> {
  const options = (await resolveConfig(WEIGHTS_FILE)) ?? {};
  return format(JSON.stringify(weights), { ...options, parser: 'json' });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const started = performance.now();
  const items = loadSplit('train');
  const weights = trainFromItems(items);
  writeFileSync(WEIGHTS_FILE, await serializeWeights(weights));
  const ms = Math.round(performance.now() - started);
  console.log(
    `trained on ${items.length} items (${Object.keys(weights.weights).length} features) in ${ms} ms → ${WEIGHTS_FILE}`,
  );
}
