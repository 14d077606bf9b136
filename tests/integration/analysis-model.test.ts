import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSplit } from '../../server/modules/analysis/dataset';
import { createLocalAnalyzer, WEIGHTS_FILE } from '../../server/modules/analysis/local-analyzer';
import { assetFigures, sentimentFigures, spearman } from '../../server/modules/analysis/metrics';
import { DEFAULT_TRAIN_OPTIONS } from '../../server/modules/analysis/model';
import { serializeJson, serializeWeights, trainFromItems } from '../../server/modules/analysis/train';
import { DEFAULT_IMPACT_OPTIONS, trainImpactModel } from '../../server/modules/analysis/impact-training';
import { IMPACT_MODEL_FILE } from '../../server/modules/analysis/impact-model';
import { ROOT } from '../helpers/process';

describe('labelled data', () => {
  it('holds at least 600 distinct items split train/dev/test with every class and no overlap', () => {
    const splits = (['train', 'dev', 'test'] as const).map((s) => loadSplit(s));
    const all = splits.flat();
    expect(all.length).toBeGreaterThanOrEqual(600);
    expect(new Set(all.map((i) => i.text.toLowerCase())).size).toBe(all.length);
    for (const split of splits) {
      for (const c of ['positive', 'negative', 'neutral'])
        expect(split.some((i) => i.sentiment === c)).toBe(true);
    }
  });
});

describe('training', () => {
  it('is deterministic and the shipped weights are what `npm run train:analysis` makes from train.jsonl', async () => {
    const train = loadSplit('train');
    const a = await serializeWeights(trainFromItems(train));
    expect(await serializeWeights(trainFromItems(train))).toBe(a);
    expect(readFileSync(WEIGHTS_FILE, 'utf8')).toBe(a);
    expect(await serializeWeights(trainFromItems(train, { ...DEFAULT_TRAIN_OPTIONS, seed: 8 }))).not.toBe(a);
  });

  it('ships the impact model `npm run train:analysis` makes from train.jsonl and train-impact.jsonl', async () => {
    const model = trainImpactModel(loadSplit('train'), DEFAULT_IMPACT_OPTIONS, loadSplit('train-impact'));
    expect(readFileSync(IMPACT_MODEL_FILE, 'utf8')).toBe(await serializeJson(model, IMPACT_MODEL_FILE));
    expect(model.stretch.every(([x], i, all) => i === 0 || x > (all[i - 1]?.[0] ?? x))).toBe(true);
    // The extra items teach the trees; the high-band classifier keeps the labels' own odds.
    const alone = trainImpactModel(loadSplit('train'));
    expect(alone.band).toEqual(model.band);
    expect(alone.trees).not.toEqual(model.trees);
  });
});

describe('metrics', () => {
  it('computes accuracy, macro-F1, recall and asset precision/recall', () => {
    const f = sentimentFigures(
      ['positive', 'negative', 'neutral', 'neutral'],
      ['positive', 'neutral', 'neutral', 'neutral'],
    );
    expect(f.accuracy).toBe(0.75);
    expect(f.recall).toEqual({ positive: 1, negative: 0, neutral: 1 });
    expect(f.macroF1).toBeCloseTo((1 + 0 + 0.8) / 3, 10);
    expect(assetFigures([['BTC'], ['ETH', 'SOL']], [['BTC', 'XRP'], ['ETH']])).toEqual({
      precision: 2 / 3,
      recall: 2 / 3,
    });
    expect(spearman([1, 2, 3], [10, 20, 30])).toBeCloseTo(1, 10);
  });

  it('eval:analysis prints every figure as JSON lines, and the dev split clears the bar', () => {
    const res = spawnSync(
      path.join(ROOT, 'node_modules/.bin/tsx'),
      ['server/modules/analysis/eval.ts', '--split', 'dev'],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(res.status).toBe(0);
    const figures = new Map(
      res.stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { metric: string; value: number })
        .map((f) => [f.metric, f.value]),
    );
    for (const m of [
      'local_accuracy',
      'local_macro_f1',
      'local_recall_neutral',
      'vader_accuracy',
      'vader_macro_f1',
      'asset_precision',
      'asset_recall',
      'p99_ms',
      'items_per_second',
    ]) {
      expect(figures.has(m)).toBe(true);
    }
    expect(figures.get('local_accuracy')).toBeGreaterThanOrEqual(0.85);
    expect(figures.get('asset_precision')).toBeGreaterThanOrEqual(0.95);
    expect(figures.get('accuracy_above_vader')).toBeGreaterThanOrEqual(0.3);
    // A child process that reads every split and times the analyzer: about 7 s of CPU, which took 43 s
    // of wall time on a machine busy with other suites.
  }, 120_000);
});

describe('held-out split', () => {
  // data/holdout.jsonl: written with the newer training items, in the same varied styles, and never
  // tuned on. Floors a little under the figures when it was set (0.887 / 0.861; assets 0.973 / 0.961).
  it('shares no item with the other splits and clears the bar', () => {
    const items = loadSplit('holdout');
    expect(items.length).toBeGreaterThanOrEqual(100);
    const known = new Set(
      (['train', 'dev', 'test', 'replay'] as const).flatMap((s) =>
        loadSplit(s).map((i) => i.text.toLowerCase()),
      ),
    );
    expect(items.filter((i) => known.has(i.text.toLowerCase()))).toEqual([]);
    const analyzer = createLocalAnalyzer();
    const results = items.map((it) => analyzer.analyze({ content: it.text, source_name: it.source }));
    const f = sentimentFigures(
      items.map((i) => i.sentiment),
      results.map((r) => r.sentiment),
    );
    expect(f.accuracy).toBeGreaterThanOrEqual(0.85);
    expect(f.macroF1).toBeGreaterThanOrEqual(0.8);
    const a = assetFigures(
      items.map((i) => i.assets),
      results.map((r) => r.assets),
    );
    expect(a.precision).toBeGreaterThanOrEqual(0.95);
    expect(a.recall).toBeGreaterThanOrEqual(0.9);
    // High-impact items reach the alert band: most of those labelled 80+ score 80+.
    const high = results.filter((_, i) => (items[i]?.impact ?? 0) >= 80);
    expect(high.filter((r) => r.impact_score >= 80).length / high.length).toBeGreaterThanOrEqual(0.6);
  });
});

describe('out-of-author replay set', () => {
  // news/sources/replay.jsonl: the bundled replay feed (another author), labelled under docs/labelling.md and
  // never trained on. Floor: accuracy and macro-F1 ≥ 0.78 (0.813 / 0.811 when this floor was set).
  it('clears the floor and gets the trading-status, treasury, wind-down and advice items right', () => {
    const items = loadSplit('replay');
    expect(items.length).toBeGreaterThanOrEqual(350);
    const known = new Set(
      (['train', 'dev', 'test'] as const).flatMap((s) => loadSplit(s).map((i) => i.text.toLowerCase())),
    );
    expect(items.filter((i) => known.has(i.text.toLowerCase()))).toEqual([]);
    const analyzer = createLocalAnalyzer();
    const results = items.map((it) => analyzer.analyze({ content: it.text, source_name: it.source }));
    const f = sentimentFigures(
      items.map((i) => i.sentiment),
      results.map((r) => r.sentiment),
    );
    expect(f.accuracy).toBeGreaterThanOrEqual(0.78);
    expect(f.macroF1).toBeGreaterThanOrEqual(0.78);
    const one = (content: string, source_name = 'Blockwire News') =>
      analyzer.analyze({ content, source_name });
    expect(one('Starbucks ends its Odyssey Web3 loyalty pilot').sentiment).toBe('negative');
    const chase = one('Do not chase green candles. Wait for the retest', 'X');
    expect(chase.sentiment).toBe('neutral');
    expect(chase.impact_score).toBeLessThanOrEqual(10);
    expect(
      one('Limit-only mode for EIGEN-USD order book lifted; full trading enabled', 'Coinbase Markets')
        .sentiment,
    ).toBe('positive');
    expect(one('Coinbase is moving KAVA to limit-only mode ahead of a planned suspension').sentiment).toBe(
      'negative',
    );
    expect(one('Video game retailer says it has added bitcoin to its balance sheet').sentiment).toBe(
      'positive',
    );
    expect(one('Fed chair says the committee is in no hurry to cut, dollar strengthens').sentiment).toBe(
      'negative',
    );
  });
});
