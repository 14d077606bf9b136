import { SentimentIntensityAnalyzer } from 'vader-sentiment';
import type { Sentiment } from '../../../src/contracts/analysis';
import { loadSplit, type LabelledItem, type Split } from './dataset';
import { createLocalAnalyzer, type LocalAnalyzer } from './local-analyzer';
import { trainFromItems } from './train';
import {
  assetFigures,
  LABELS,
  percentile,
  sentimentFigures,
  spearman,
  type SentimentFigures,
} from './metrics';

/**
 * `npm run eval:analysis [-- --split dev]`: the local analyzer and VADER on the same labelled split
 * (test by default; tune on dev only), then 5-fold cross-validation over train+dev (the model retrained
 * on four folds, scored on the fifth), the held-out split (data/holdout.jsonl: no rule or weight was tuned
 * on it) and the out-of-author replay set (news/sources/replay.jsonl). Prints a table, then one JSON line per
 * figure; lines of the other sets carry their `split` and a prefix (`cv_`, `holdout_`, `replay_`).
 */
const split: Split = process.argv.includes('--split')
  ? ((process.argv[process.argv.indexOf('--split') + 1] ?? 'test') as Split)
  : 'test';
const shipped = createLocalAnalyzer();
const inputOf = (text: string, source: string) => ({ content: text, source_name: source });

interface Figures {
  n: number;
  ours: SentimentFigures;
  vader: SentimentFigures;
  assets: { precision: number; recall: number };
  eventAccuracy: number;
  impactSpearman: number;
  impactMae: number;
  /** Probability that an item labelled high-impact (≥ 70) scores above one labelled low (≤ 30). */
  impactAuc: number;
  /** Scores at or above the alert threshold (80), and in the 50-80 band. */
  impactAt80: number;
  impactAt50: number;
}

/** Mann-Whitney AUC of the scores of the high items against the low ones (ties count half). */
export function rankAuc(high: readonly number[], low: readonly number[]): number {
  if (high.length === 0 || low.length === 0) return 0;
  let wins = 0;
  for (const h of high) for (const l of low) wins += h > l ? 1 : h === l ? 0.5 : 0;
  return wins / (high.length * low.length);
}

export function figuresOf(items: readonly LabelledItem[], analyzer: LocalAnalyzer = shipped): Figures {
  const results = items.map((it) => analyzer.analyze(inputOf(it.text, it.source)));
  const gold = items.map((it) => it.sentiment);
  const ours = sentimentFigures(
    gold,
    results.map((r) => r.sentiment),
  );
  const vader = sentimentFigures(
    gold,
    items.map((it): Sentiment => {
      const c = SentimentIntensityAnalyzer.polarity_scores(it.text).compound;
      return c >= 0.05 ? 'positive' : c <= -0.05 ? 'negative' : 'neutral';
    }),
  );
  const assets = assetFigures(
    items.map((it) => it.assets),
    results.map((r) => r.assets),
  );
  const eventAccuracy = results.filter((r, i) => r.event_type === items[i]?.event_type).length / items.length;
  const impactSpearman = spearman(
    items.map((it) => it.impact),
    results.map((r) => r.impact_score),
  );
  const impactMae =
    results.reduce((s, r, i) => s + Math.abs(r.impact_score - (items[i]?.impact ?? 0)), 0) / items.length;
  const scores = results.map((r) => r.impact_score);
  const impactAuc = rankAuc(
    scores.filter((_, i) => (items[i]?.impact ?? 0) >= 70),
    scores.filter((_, i) => (items[i]?.impact ?? 100) <= 30),
  );
  const impactAt80 = scores.filter((x) => x >= 80).length;
  const impactAt50 = scores.filter((x) => x >= 50 && x < 80).length;
  return {
    n: items.length,
    ours,
    vader,
    assets,
    eventAccuracy,
    impactSpearman,
    impactMae,
    impactAuc,
    impactAt80,
    impactAt50,
  };
}

/** k-fold cross-validation: the rules stay, the model is retrained without the fold it is scored on. */
export function crossValidate(
  items: readonly LabelledItem[],
  k = 5,
): { gold: LabelledItem[]; results: Figures } {
  const predictions: LabelledItem[] = [];
  const byFold: LabelledItem[][] = Array.from({ length: k }, () => []);
  items.forEach((it, i) => byFold[i % k]?.push(it));
  const pooled: { item: LabelledItem; analyzer: LocalAnalyzer }[] = [];
  for (let f = 0; f < k; f++) {
    const rest = byFold.filter((_, j) => j !== f).flat();
    const analyzer = createLocalAnalyzer(trainFromItems(rest));
    for (const item of byFold[f] ?? []) pooled.push({ item, analyzer });
  }
  // Score each fold with its own model, pooled into one set of figures.
  const results = pooled.map(({ item, analyzer }) => analyzer.analyze(inputOf(item.text, item.source)));
  const fixed: LocalAnalyzer = {
    analyze: (input) =>
      results[pooled.findIndex((p) => p.item.text === input.content)] ?? shipped.analyze(input),
    explain: (input) => shipped.explain(input),
  };
  predictions.push(...pooled.map((p) => p.item));
  return { gold: predictions, results: figuresOf(predictions, fixed) };
}

const items = loadSplit(split);
const main = figuresOf(items);
const analyzer = shipped;

// Timing on this one thread: per-item latency over repeated rounds, then sustained throughput.
const inputs = items.map((it) => inputOf(it.text, it.source));
for (let i = 0; i < 20; i++) for (const input of inputs) analyzer.analyze(input);
const times: number[] = [];
for (let round = 0; round < 30; round++) {
  for (const input of inputs) {
    const t0 = process.hrtime.bigint();
    analyzer.analyze(input);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
}
times.sort((a, b) => a - b);
let done = 0;
const start = performance.now();
while (performance.now() - start < 2000) {
  for (const input of inputs) analyzer.analyze(input);
  done += inputs.length;
}
const itemsPerSecond = done / ((performance.now() - start) / 1000);

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const row = (name: string, f: SentimentFigures) =>
  `${name.padEnd(8)} accuracy ${pct(f.accuracy)}  macro-F1 ${f.macroF1.toFixed(3)}  recall ` +
  LABELS.map((c) => `${c} ${pct(f.recall[c])}`).join(' · ');
const printTable = (f: Figures) => {
  console.log(row('local', f.ours));
  console.log(row('vader', f.vader));
  console.log(`accuracy above VADER: ${((f.ours.accuracy - f.vader.accuracy) * 100).toFixed(1)} points`);
  console.log(`assets   precision ${pct(f.assets.precision)}  recall ${pct(f.assets.recall)}`);
  console.log(
    `events   accuracy ${pct(f.eventAccuracy)}; impact Spearman ${f.impactSpearman.toFixed(3)}, MAE ${f.impactMae.toFixed(1)}, ` +
      `AUC high vs low ${f.impactAuc.toFixed(3)}; ${f.impactAt80} items ≥ 80, ${f.impactAt50} in 50-80`,
  );
};
console.log(`split: ${split} (${main.n} items)`);
printTable(main);
console.log(
  `speed    p50 ${percentile(times, 50).toFixed(3)} ms  p99 ${percentile(times, 99).toFixed(3)} ms  ${Math.round(itemsPerSecond)} items/s on one core`,
);

const printLines = (name: string, f: Figures, prefix: string) => {
  const line = (metric: string, value: number, unit = 'ratio') =>
    console.log(
      JSON.stringify({
        eval: 'analysis',
        split: name,
        metric: `${prefix}${metric}`,
        value: Number(value.toFixed(4)),
        unit,
      }),
    );
  for (const [engine, s] of [
    ['local', f.ours],
    ['vader', f.vader],
  ] as const) {
    line(`${engine}_accuracy`, s.accuracy);
    line(`${engine}_macro_f1`, s.macroF1);
    for (const c of LABELS) line(`${engine}_recall_${c}`, s.recall[c]);
  }
  line('accuracy_above_vader', f.ours.accuracy - f.vader.accuracy);
  line('asset_precision', f.assets.precision);
  line('asset_recall', f.assets.recall);
  line('event_accuracy', f.eventAccuracy);
  line('impact_spearman', f.impactSpearman);
  line('impact_mae', f.impactMae, 'points');
  line('impact_auc', f.impactAuc);
  line('impact_at_80', f.impactAt80, 'items');
  return line;
};
const line = printLines(split, main, '');
line('p99_ms', percentile(times, 99), 'ms');
line('items_per_second', itemsPerSecond, 'items/s');

// Cross-validated over train+dev, then the held-out split and the out-of-author replay set.
if (split !== 'replay') {
  const cv = crossValidate([...loadSplit('train'), ...loadSplit('dev')]).results;
  console.log(`\n5-fold cross-validation over train+dev (${cv.n} items; rules fixed, model refit per fold)`);
  printTable(cv);
  printLines('cv', cv, 'cv_');
  const holdout = figuresOf(loadSplit('holdout'));
  console.log(`\nheld-out split (data/holdout.jsonl, ${holdout.n} items, never tuned on)`);
  printTable(holdout);
  printLines('holdout', holdout, 'holdout_');
  const replay = figuresOf(loadSplit('replay'));
  console.log(`\nout-of-author: replay feed (news/sources/replay.jsonl, ${replay.n} items, another author)`);
  printTable(replay);
  printLines('replay', replay, 'replay_');
}
