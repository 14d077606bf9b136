import type { Sentiment } from '../../../src/contracts/analysis';
import type { LabelledItem } from './dataset';
import { createLocalAnalyzer, type LocalAnalyzer } from './local-analyzer';
import { DEFAULT_IMPACT_OPTIONS, trainImpactModel } from './impact-training';
import { trainFromItems } from './train';
import { assetFigures, sentimentFigures, spearman, type SentimentFigures } from './metrics';

/** The figures `npm run eval:analysis` prints for one labelled set (and the tests read). */
export interface Figures {
  n: number;
  ours: SentimentFigures;
  /** The same items labelled by a baseline (VADER in `eval.ts`), when one is given. */
  vader?: SentimentFigures;
  assets: { precision: number; recall: number };
  eventAccuracy: number;
  impactSpearman: number;
  impactMae: number;
  /** Probability that an item labelled high-impact (≥ 70) scores above one labelled low (≤ 30). */
  impactAuc: number;
  /** Scores at or above the alert threshold (80), and in the 50-80 band. */
  impactAt80: number;
  impactAt50: number;
  /** Share of the items labelled high-impact (≥ 70) that reach the alert threshold. */
  highAt80: number;
  /** Share of the tenth of the items with the highest labels that reach the alert threshold. */
  topDecileAt80: number;
  /** Share of the items labelled low-impact (≤ 30) that score 80 or more: false alerts. */
  lowAt80: number;
  /** Items labelled in the high band (≥ 80), and the share of them that reach the alert threshold. */
  highBand: number;
  highBandAt80: number;
  /** Share of the items labelled low-impact (≤ 30) that score above 60. */
  lowAbove60: number;
}

export const ALERT_THRESHOLD = 80;
const HIGH = 70;
const LOW = 30;

/** Mann-Whitney AUC of the scores of the high items against the low ones (ties count half). */
export function rankAuc(high: readonly number[], low: readonly number[]): number {
  if (high.length === 0 || low.length === 0) return 0;
  let wins = 0;
  for (const h of high) for (const l of low) wins += h > l ? 1 : h === l ? 0.5 : 0;
  return wins / (high.length * low.length);
}

const share = (xs: readonly number[]) =>
  xs.length === 0 ? 0 : xs.filter((x) => x >= ALERT_THRESHOLD).length / xs.length;

let shippedAnalyzer: LocalAnalyzer | undefined;
const shipped = () => (shippedAnalyzer ??= createLocalAnalyzer());
export const inputOf = (text: string, source: string) => ({ content: text, source_name: source });

/** A baseline's sentiment for a text, to compare against (`eval.ts` passes VADER). */
export type Labeller = (text: string) => Sentiment;

export function figuresOf(
  items: readonly LabelledItem[],
  analyzer: LocalAnalyzer = shipped(),
  baseline?: Labeller,
): Figures {
  const results = items.map((it) => analyzer.analyze(inputOf(it.text, it.source)));
  const gold = items.map((it) => it.sentiment);
  const scores = results.map((r) => r.impact_score);
  const labels = items.map((it) => it.impact);
  const scoresWhere = (keep: (label: number) => boolean) => scores.filter((_, i) => keep(labels[i] ?? 0));
  // The top tenth by label, ties at the cut included.
  const cut = [...labels].sort((a, b) => b - a)[Math.max(0, Math.ceil(labels.length / 10) - 1)] ?? 100;
  return {
    n: items.length,
    ours: sentimentFigures(
      gold,
      results.map((r) => r.sentiment),
    ),
    ...(baseline === undefined
      ? {}
      : {
          vader: sentimentFigures(
            gold,
            items.map((it) => baseline(it.text)),
          ),
        }),
    assets: assetFigures(
      items.map((it) => it.assets),
      results.map((r) => r.assets),
    ),
    eventAccuracy: results.filter((r, i) => r.event_type === items[i]?.event_type).length / items.length,
    impactSpearman: spearman(labels, scores),
    impactMae: scores.reduce((s, x, i) => s + Math.abs(x - (labels[i] ?? 0)), 0) / items.length,
    impactAuc: rankAuc(
      scoresWhere((l) => l >= HIGH),
      scoresWhere((l) => l <= LOW),
    ),
    impactAt80: scores.filter((x) => x >= ALERT_THRESHOLD).length,
    impactAt50: scores.filter((x) => x >= 50 && x < ALERT_THRESHOLD).length,
    highAt80: share(scoresWhere((l) => l >= HIGH)),
    topDecileAt80: share(scoresWhere((l) => l >= cut)),
    lowAt80: share(scoresWhere((l) => l <= LOW)),
    highBand: scoresWhere((l) => l >= ALERT_THRESHOLD).length,
    highBandAt80: share(scoresWhere((l) => l >= ALERT_THRESHOLD)),
    lowAbove60: ((low) => (low.length === 0 ? 0 : low.filter((x) => x > 60).length / low.length))(
      scoresWhere((l) => l <= LOW),
    ),
  };
}

/** k-fold cross-validation: the rules stay, both models are retrained without the fold they score. */
export function crossValidate(
  items: readonly LabelledItem[],
  k = 5,
  baseline?: Labeller,
  impactExtra: readonly LabelledItem[] = [],
): Figures {
  const byFold: LabelledItem[][] = Array.from({ length: k }, () => []);
  items.forEach((it, i) => byFold[i % k]?.push(it));
  const pooled: { item: LabelledItem; analyzer: LocalAnalyzer }[] = [];
  for (let f = 0; f < k; f++) {
    const rest = byFold.filter((_, j) => j !== f).flat();
    const analyzer = createLocalAnalyzer(
      trainFromItems(rest),
      trainImpactModel(rest, DEFAULT_IMPACT_OPTIONS, impactExtra),
    );
    for (const item of byFold[f] ?? []) pooled.push({ item, analyzer });
  }
  // Score each fold with its own model, pooled into one set of figures.
  const byText = new Map(
    pooled.map(({ item, analyzer }) => [item.text, analyzer.analyze(inputOf(item.text, item.source))]),
  );
  const fixed: LocalAnalyzer = {
    analyze: (input) => byText.get(input.content) ?? shipped().analyze(input),
    explain: (input) => shipped().explain(input),
  };
  return figuresOf(
    pooled.map((p) => p.item),
    fixed,
    baseline,
  );
}

/** The held-out figures whose gap is watched: the style-matched set minus the set in other voices. */
export const GAP_FIGURES = {
  accuracy: (f: Figures) => f.ours.accuracy,
  macro_f1: (f: Figures) => f.ours.macroF1,
  asset_recall: (f: Figures) => f.assets.recall,
  high_at_80: (f: Figures) => f.highAt80,
} as const;
export type GapFigure = keyof typeof GAP_FIGURES;

/** `data/gap-baseline.json`: the gaps when they were last accepted, and how much wider is still noise. */
export interface GapBaseline {
  tolerance: number;
  gap: Record<GapFigure, number>;
}

export interface GapRow {
  figure: GapFigure;
  gap: number;
  allowed: number;
  widened: boolean;
}

/** The gap of each watched figure; wider than the baseline plus its tolerance is a regression. */
export function gapRows(styled: Figures, voices: Figures, baseline: GapBaseline): GapRow[] {
  return (Object.keys(GAP_FIGURES) as GapFigure[]).map((figure) => {
    const gap = GAP_FIGURES[figure](styled) - GAP_FIGURES[figure](voices);
    const allowed = baseline.gap[figure] + baseline.tolerance;
    return { figure, gap, allowed, widened: gap > allowed };
  });
}

/** The goals on news written by others (docs/analysis.md "Figures"). */
export const OUTSIDE_GOALS: readonly {
  name: string;
  value: (f: Figures) => number;
  min?: number;
  max?: number;
}[] = [
  { name: 'sentiment accuracy', value: (f) => f.ours.accuracy, min: 0.85 },
  { name: 'lowest recall', value: (f) => Math.min(...Object.values(f.ours.recall)), min: 0.8 },
  { name: 'asset precision', value: (f) => f.assets.precision, min: 0.95 },
  { name: 'asset recall', value: (f) => f.assets.recall, min: 0.9 },
  { name: 'impact AUC', value: (f) => f.impactAuc, min: 0.92 },
  { name: 'high band at 80+', value: (f) => f.highBandAt80, min: 0.6 },
  { name: 'low items above 60', value: (f) => f.lowAbove60, max: 0.05 },
];

export function goalRows(f: Figures): { name: string; value: number; goal: string; met: boolean }[] {
  return OUTSIDE_GOALS.map((g) => {
    const value = g.value(f);
    const met = (g.min === undefined || value >= g.min) && (g.max === undefined || value <= g.max);
    return { name: g.name, value, goal: g.min !== undefined ? `≥ ${g.min}` : `≤ ${g.max ?? 0}`, met };
  });
}
