import { readFileSync } from 'node:fs';
import { SentimentIntensityAnalyzer } from 'vader-sentiment';
import type { Sentiment } from '../../../src/contracts/analysis';
import path from 'node:path';
import { DATA_DIR, loadFile, loadSplit, type LabelledItem, type Split } from './dataset';
import {
  crossValidate,
  figuresOf,
  gapRows,
  goalRows,
  inputOf,
  type Figures,
  type GapBaseline,
} from './eval-figures';
import { createLocalAnalyzer } from './local-analyzer';
import { LABELS, percentile, type SentimentFigures } from './metrics';

/**
 * `npm run eval:analysis [-- --split dev]`: the local analyzer and VADER on the same labelled split
 * (test by default; tune on dev only), then 5-fold cross-validation over train+dev (the model retrained
 * on four folds, scored on the fifth), the two held-out sets (data/holdout.jsonl in the training items'
 * styles, data/voices.jsonl in voices the training items lack; no rule or weight was tuned on either) and
 * the out-of-author replay set (news/sources/replay.jsonl). Then the gap between the two held-out sets:
 * wider than `data/gap-baseline.json` allows is a regression (the tuning fits one writing style), printed
 * as such and failing the run with exit code 1. Last, the sets written by others (data/outside.jsonl and any
 * given with `--outside <file>` or ANALYSIS_OUTSIDE_SETS), each against the goals for such news. Prints a table, then one JSON line per figure; lines of the
 * other sets carry their `split` and a prefix (`cv_`, `holdout_`, `voices_`, `replay_`, `gap_`).
 */
const split: Split = process.argv.includes('--split')
  ? ((process.argv[process.argv.indexOf('--split') + 1] ?? 'test') as Split)
  : 'test';

const vader = (text: string): Sentiment => {
  const c = SentimentIntensityAnalyzer.polarity_scores(text).compound;
  return c >= 0.05 ? 'positive' : c <= -0.05 ? 'negative' : 'neutral';
};
const analyzer = createLocalAnalyzer();
const items = loadSplit(split);
const main = figuresOf(items, analyzer, vader);

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
  if (f.vader !== undefined) {
    console.log(row('vader', f.vader));
    console.log(`accuracy above VADER: ${((f.ours.accuracy - f.vader.accuracy) * 100).toFixed(1)} points`);
  }
  console.log(`assets   precision ${pct(f.assets.precision)}  recall ${pct(f.assets.recall)}`);
  console.log(
    `events   accuracy ${pct(f.eventAccuracy)}; impact Spearman ${f.impactSpearman.toFixed(3)}, MAE ${f.impactMae.toFixed(1)}, ` +
      `AUC high vs low ${f.impactAuc.toFixed(3)}; ${f.impactAt80} items ≥ 80, ${f.impactAt50} in 50-80`,
  );
  console.log(
    `alerts   ${pct(f.highBandAt80)} of the ${f.highBand} high-band items (≥ 80), ${pct(f.highAt80)} of items ≥ 70 and ` +
      `${pct(f.topDecileAt80)} of the top tenth reach 80; of low-impact items (≤ 30) ${pct(f.lowAt80)} do, ` +
      `${pct(f.lowAbove60)} score above 60`,
  );
};

const line = (name: string, metric: string, value: number, unit = 'ratio') =>
  console.log(
    JSON.stringify({ eval: 'analysis', split: name, metric, value: Number(value.toFixed(4)), unit }),
  );
const printLines = (name: string, f: Figures, prefix: string) => {
  const engines: [string, SentimentFigures][] = [['local', f.ours]];
  if (f.vader !== undefined) engines.push(['vader', f.vader]);
  for (const [engine, s] of engines) {
    line(name, `${prefix}${engine}_accuracy`, s.accuracy);
    line(name, `${prefix}${engine}_macro_f1`, s.macroF1);
    for (const c of LABELS) line(name, `${prefix}${engine}_recall_${c}`, s.recall[c]);
  }
  if (f.vader !== undefined) line(name, `${prefix}accuracy_above_vader`, f.ours.accuracy - f.vader.accuracy);
  line(name, `${prefix}asset_precision`, f.assets.precision);
  line(name, `${prefix}asset_recall`, f.assets.recall);
  line(name, `${prefix}event_accuracy`, f.eventAccuracy);
  line(name, `${prefix}impact_spearman`, f.impactSpearman);
  line(name, `${prefix}impact_mae`, f.impactMae, 'points');
  line(name, `${prefix}impact_auc`, f.impactAuc);
  line(name, `${prefix}impact_at_80`, f.impactAt80, 'items');
  line(name, `${prefix}high_at_80`, f.highAt80);
  line(name, `${prefix}top_decile_at_80`, f.topDecileAt80);
  line(name, `${prefix}low_at_80`, f.lowAt80);
  line(name, `${prefix}high_band_at_80`, f.highBandAt80);
  line(name, `${prefix}low_above_60`, f.lowAbove60);
};

/** A set written by others, with the goals for such news met or missed. */
const printOutside = (title: string, name: string, items: readonly LabelledItem[]) => {
  const f = figuresOf(items, analyzer, vader);
  console.log(`\n${title} (${f.n} items, never tuned on)`);
  printTable(f);
  printLines(name, f, `${name}_`);
  const rows = goalRows(f);
  console.log(
    `goals    ${rows.map((r) => `${r.name} ${r.value.toFixed(3)} ${r.goal} ${r.met ? 'met' : 'MISSED'}`).join(' · ')}`,
  );
  line(name, `${name}_goals_missed`, rows.filter((r) => !r.met).length, 'goals');
};

console.log(`split: ${split} (${main.n} items)`);
printTable(main);
console.log(
  `speed    p50 ${percentile(times, 50).toFixed(3)} ms  p99 ${percentile(times, 99).toFixed(3)} ms  ${Math.round(itemsPerSecond)} items/s on one core`,
);
printLines(split, main, '');
line(split, 'p99_ms', percentile(times, 99), 'ms');
line(split, 'items_per_second', itemsPerSecond, 'items/s');

const regressions: string[] = [];
if (split !== 'replay') {
  const cv = crossValidate([...loadSplit('train'), ...loadSplit('dev')], 5, vader, loadSplit('train-impact'));
  console.log(`\n5-fold cross-validation over train+dev (${cv.n} items; rules fixed, model refit per fold)`);
  printTable(cv);
  printLines('cv', cv, 'cv_');
  const holdout = figuresOf(loadSplit('holdout'), analyzer, vader);
  console.log(`\nheld-out, training styles (data/holdout.jsonl, ${holdout.n} items, never tuned on)`);
  printTable(holdout);
  printLines('holdout', holdout, 'holdout_');
  const voices = figuresOf(loadSplit('voices'), analyzer, vader);
  console.log(`\nheld-out, other voices (data/voices.jsonl, ${voices.n} items, never tuned on)`);
  printTable(voices);
  printLines('voices', voices, 'voices_');
  const replay = figuresOf(loadSplit('replay'), analyzer, vader);
  console.log(`\nout-of-author: replay feed (news/sources/replay.jsonl, ${replay.n} items, another author)`);
  printTable(replay);
  printLines('replay', replay, 'replay_');

  printOutside('written by others: data/outside.jsonl', 'outside', loadSplit('outside'));
  // Sets kept outside the repository: `--outside <file>` (repeatable) or ANALYSIS_OUTSIDE_SETS=a.jsonl:b.jsonl.
  const external = [
    ...process.argv.flatMap((arg, i) => (arg === '--outside' ? [process.argv[i + 1] ?? ''] : [])),
    ...(process.env.ANALYSIS_OUTSIDE_SETS ?? '').split(':'),
  ].filter((file) => file !== '');
  external.forEach((file, i) =>
    printOutside(`written by others: ${path.basename(file)}`, `external${i + 1}`, loadFile(file)),
  );

  const baseline = JSON.parse(readFileSync(path.join(DATA_DIR, 'gap-baseline.json'), 'utf8')) as GapBaseline;
  console.log('\ngap between the held-out sets (training styles minus other voices; wider is worse)');
  for (const row of gapRows(holdout, voices, baseline)) {
    if (row.widened) regressions.push(row.figure);
    const base = baseline.gap[row.figure];
    console.log(
      `${row.figure.padEnd(13)} ${row.gap >= 0 ? '+' : ''}${row.gap.toFixed(3)} (baseline ${base.toFixed(3)}, ` +
        `allowed up to ${row.allowed.toFixed(3)})${row.widened ? '  REGRESSION: the gap widened' : ''}`,
    );
    line('gap', `gap_${row.figure}`, row.gap);
  }
  line('gap', 'gap_regressions', regressions.length, 'figures');
}
if (regressions.length > 0) {
  console.error(`regression: the gap between the held-out sets widened (${regressions.join(', ')})`);
  process.exitCode = 1;
}
