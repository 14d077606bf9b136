import { SentimentIntensityAnalyzer } from 'vader-sentiment';
import type { Sentiment } from '../../../src/contracts/analysis';
import { loadSplit, type LabelledItem, type Split } from './dataset';
import { createLocalAnalyzer } from './local-analyzer';
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
 * (test by default; tune on dev only), then the same figures on the out-of-author replay set
 * (data/replay.jsonl: the bundled replay feed, written by someone else than the rules and the training
 * data). Prints a table, then one JSON line per figure; the replay lines carry `split: "replay"` and a
 * `replay_` prefix on the metric.
 */
const split: Split = process.argv.includes('--split')
  ? ((process.argv[process.argv.indexOf('--split') + 1] ?? 'test') as Split)
  : 'test';
const analyzer = createLocalAnalyzer();
const inputOf = (text: string, source: string) => ({ content: text, source_name: source });

interface Figures {
  n: number;
  ours: SentimentFigures;
  vader: SentimentFigures;
  assets: { precision: number; recall: number };
  eventAccuracy: number;
  impactSpearman: number;
  impactMae: number;
}

export function figuresOf(items: readonly LabelledItem[]): Figures {
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
  return { n: items.length, ours, vader, assets, eventAccuracy, impactSpearman, impactMae };
}

const items = loadSplit(split);
const main = figuresOf(items);

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
    `events   accuracy ${pct(f.eventAccuracy)}; impact Spearman ${f.impactSpearman.toFixed(3)}, MAE ${f.impactMae.toFixed(1)}`,
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
  return line;
};
const line = printLines(split, main, '');
line('p99_ms', percentile(times, 99), 'ms');
line('items_per_second', itemsPerSecond, 'items/s');

// The out-of-author set: the replay feed's items, labelled under the same guideline, never trained on.
if (split !== 'replay') {
  const replay = figuresOf(loadSplit('replay'));
  console.log(`\nout-of-author: replay feed (data/replay.jsonl, ${replay.n} items, another author)`);
  printTable(replay);
  printLines('replay', replay, 'replay_');
}
