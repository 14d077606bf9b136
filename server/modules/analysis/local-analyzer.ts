import { readFileSync } from 'node:fs';
import type { AnalysisInput, AnalysisResult, Sentiment } from '../../../src/contracts/analysis';
import { assetDetailsOf } from '../../../src/contracts/tradability';
import { tagAssets } from './assets';
import { detectEvent, type EventMatch } from './events';
import { featurize } from './features';
import { impactInputOf } from './impact';
import { impactScoreOf, loadImpactModel, type ImpactModel } from './impact-model';
import { SentimentModel, type ModelWeights } from './model';
import { normalizeText } from './normalize';
import { buildReasoning } from './reasoning';
import { fromRoot } from '../../paths';

/**
 * The offline analyzer (ANALYZER=local): assets from the dictionary, the event from the rules, the
 * sentiment from the linear model unless a confident rule decides, then impact and reasoning. Pure and
 * synchronous; about 20 µs per item.
 */
export const WEIGHTS_FILE = fromRoot('server/modules/analysis/weights.json');

/** Bumped whenever the rules, the coin table or the impact scale change what the engine answers. */
export const LOCAL_ENGINE_VERSION = 'local-4';

export function loadWeights(file = WEIGHTS_FILE): ModelWeights {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as ModelWeights;
  } catch (err) {
    throw new Error(`Cannot read the sentiment weights at ${file}: run npm run train:analysis`, {
      cause: err,
    });
  }
}

const DIR_TO_SENTIMENT: Record<-1 | 0 | 1, Sentiment> = { [-1]: 'negative', 0: 'neutral', 1: 'positive' };

/** Everything the local engine works out for one item; `analyze` turns it into the contract's shape. */
export interface LocalDetail {
  result: AnalysisResult;
  event: EventMatch;
  modelLabel: Sentiment;
  modelProbs: [number, number, number];
}

export interface LocalAnalyzer {
  analyze(input: AnalysisInput): AnalysisResult;
  explain(input: AnalysisInput): LocalDetail;
}

export function createLocalAnalyzer(
  weights: ModelWeights = loadWeights(),
  impactModel: ImpactModel = loadImpactModel(),
): LocalAnalyzer {
  const model = new SentimentModel(weights);
  const explain = (input: AnalysisInput): LocalDetail => {
    const raw = input.quote ? `${input.content}\n${input.quote.content}` : input.content;
    const text = normalizeText(raw);
    const assets = tagAssets(text);
    const event = detectEvent(text);
    const prediction = model.predict(featurize(text, event));
    const sentiment = event.confident ? DIR_TO_SENTIMENT[event.dir] : prediction.label;
    const impactInput = impactInputOf(text, assets, event, input.source_name);
    const asset = impactInput.asset;
    const authority = impactInput.authority;
    const impact = impactScoreOf(impactModel, impactInput);
    const result: AnalysisResult = {
      assets,
      asset_details: assetDetailsOf(assets),
      asset,
      sentiment,
      impact_score: impact,
      reasoning: buildReasoning(event, sentiment, assets, authority),
      event_type: event.type,
      engine: 'local',
      engine_version: LOCAL_ENGINE_VERSION,
    };
    return { result, event, modelLabel: prediction.label, modelProbs: prediction.probs };
  };
  return { explain, analyze: (input) => explain(input).result };
}
