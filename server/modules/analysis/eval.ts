import { SentimentIntensityAnalyzer } from 'vader-sentiment';
import type { Sentiment } from '../../../src/contracts/analysis';
import { loadSplit, type Split } from './dataset';
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
 * (test by default; tune on dev only). Prints a table, then one JSON line per figure.
 */
const split: Split = process.argv.includes('--split')
  ? ((process.argv[process.argv.indexOf('--split') + 1] ?? 'test') as Split)
  : 'test';
const items = loadSplit(split);
const analyzer = createLocalAnalyzer();
const inputOf = (text: string, source: string) => ({ content: text, source_name: source });

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
console.log(`split: ${split} (${items.length} items)`);
console.log(row('local', ours));
console.log(row('vader', vader));
console.log(`accuracy above VADER: ${((ours.accuracy - vader.accuracy) * 100).toFixed(1)} points`);
console.log(`assets   precision ${pct(assets.precision)}  recall ${pct(assets.recall)}`);
console.log(
  `events   accuracy ${pct(eventAccuracy)}; impact Spearman ${impactSpearman.toFixed(3)}, MAE ${impactMae.toFixed(1)}`,
);
console.log(
  `speed    p50 ${percentile(times, 50).toFixed(3)} ms  p99 ${percentile(times, 99).toFixed(3)} ms  ${Math.round(itemsPerSecond)} items/s on one core`,
);

const line = (metric: string, value: number, unit = 'ratio') =>
  console.log(JSON.stringify({ eval: 'analysis', split, metric, value: Number(value.toFixed(4)), unit }));
for (const [engine, f] of [
  ['local', ours],
  ['vader', vader],
] as const) {
  line(`${engine}_accuracy`, f.accuracy);
  line(`${engine}_macro_f1`, f.macroF1);
  for (const c of LABELS) line(`${engine}_recall_${c}`, f.recall[c]);
}
line('accuracy_above_vader', ours.accuracy - vader.accuracy);
line('asset_precision', assets.precision);
line('asset_recall', assets.recall);
line('event_accuracy', eventAccuracy);
line('impact_spearman', impactSpearman);
line('impact_mae', impactMae, 'points');
line('p99_ms', percentile(times, 99), 'ms');
line('items_per_second', itemsPerSecond, 'items/s');
