import { loadConfig } from '../server/config';
import { createAnalyzer } from '../server/modules/analysis/analysis.service';
import { loadSplit } from '../server/modules/analysis/dataset';
import { report } from './lib/report';

/**
 * The local analyzer (ANALYZER=local) on one core: every labelled headline in turn through the same
 * `analyze()` the news pipeline calls, in rounds of ROUND_S seconds; prints the median rate and the
 * per-item latency. Target ≥ 5,000 items/s (issue 6) and p99 < 2 ms (analysis.md).
 */
const ROUNDS = 3;
const ROUND_S = Number(process.env.BENCH_ROUND_S ?? 2);

const config = loadConfig({ ANALYZER: 'local', NODE_ENV: 'test', LOG_LEVEL: 'silent' });
const analyzer = createAnalyzer(config);
const inputs = (['train', 'dev', 'test'] as const)
  .flatMap((s) => loadSplit(s))
  .map((it) => ({ content: it.text, source_name: it.source }));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? NaN;

for (let i = 0; i < 10; i++) for (const input of inputs) await analyzer.analyze(input); // warm-up

const rates: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  let done = 0;
  const start = performance.now();
  while (performance.now() - start < ROUND_S * 1000) {
    for (const input of inputs) await analyzer.analyze(input);
    done += inputs.length;
  }
  rates.push(done / ((performance.now() - start) / 1000));
}

const times: number[] = [];
for (let round = 0; round < 10; round++) {
  for (const input of inputs) {
    const t0 = process.hrtime.bigint();
    await analyzer.analyze(input);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
}
times.sort((a, b) => a - b);

report('analyzer', 'items_per_s_one_core', median(rates), 'items/s');
report('analyzer', 'p50', pct(times, 0.5), 'ms');
report('analyzer', 'p99', pct(times, 0.99), 'ms');
await analyzer.close();
