import type { ScoreGroup, ScoreHorizon, Scorecard } from '../../contracts/scorecard';
import { info, muted, styled, type OutputLine } from '../terminal/output';
import { pnlStyle, table, type Cell, type Column } from '../terminal/table';
import { formatMove, formatRate, formatSize, priceNote } from './scorecard';
import { windowText } from './view';

/** Longer source names are cut so the table fits the terminal pane (about 60 columns). */
const NAME_WIDTH = 14;

const cut = (name: string): string => (name.length > NAME_WIDTH ? `${name.slice(0, NAME_WIDTH - 1)}…` : name);

/** One horizon of a group: `67% +0.42%` (hit rate, mean move), or for neutral items `— ±0.31%`. */
function cell(group: ScoreGroup, horizon: ScoreHorizon, neutral: boolean): Cell {
  const h = group.horizons.find((x) => x.horizon === horizon);
  if (h === undefined) return '—';
  if (neutral) return `— ${formatSize(h.neutral_abs_move)}`;
  const text = `${formatRate(h.hit_rate)} ${formatMove(h.mean_move)}`;
  const style = pnlStyle(h.mean_move);
  return style === undefined ? text : { text, style };
}

/** One compact table: a row per group, its signal count, then one cell per horizon. */
function groupTable(title: string, groups: readonly ScoreGroup[], horizons: readonly ScoreHorizon[]) {
  const columns: Column[] = [
    { header: title },
    { header: 'N', align: 'right' },
    ...horizons.map((h): Column => ({ header: h, align: 'right' })),
  ];
  const rows = groups.map((g): Cell[] => {
    const neutral = title === 'SENTIMENT' && g.key === 'neutral';
    return [cut(g.key), String(g.signals), ...horizons.map((h) => cell(g, h, neutral))];
  });
  return table(columns, rows);
}

/**
 * The scorecard as terminal lines: a heading that names the window and the price source, then one
 * table per grouping (impact band, sentiment, source) with the overall row first, and retracted
 * stories with their retractions apart when there are any.
 */
export function scorecardLines(card: Scorecard): OutputLine[] {
  const count = card.overall.signals;
  const lines: OutputLine[] = [
    styled([
      { text: `Scorecard, ${windowText(card)} ` },
      { text: `(${priceNote(card)})`, ...(card.price_source === 'sim' ? { style: 'muted' as const } : {}) },
      { text: `: ${count} signal${count === 1 ? '' : 's'}.` },
    ]),
  ];
  // Simulated prices: the figures below are chance, and that is said before them.
  if (card.note) lines.push(info(card.note));
  if (count === 0) {
    lines.push(muted('Nothing measured yet: prices are taken 1, 5 and 30 minutes after a signal arrives.'));
    return lines;
  }
  lines.push(
    muted(
      "Each horizon: the hit rate (the price went the sentiment's way) and the mean move that way; " +
        'neutral signals have no direction, only the mean size of their move. N: signals measured.',
    ),
  );
  const h = card.horizons;
  lines.push(...groupTable('IMPACT', [card.overall, ...card.by_impact], h));
  lines.push(...groupTable('SENTIMENT', card.by_sentiment, h));
  if (card.by_source.length > 0) lines.push(...groupTable('SOURCE', card.by_source, h));
  if (card.by_retraction.some((g) => g.signals > 0)) {
    lines.push(muted('Retracted stories and their retractions, counted apart from the figures above:'));
    lines.push(...groupTable('RETRACTION', card.by_retraction, h));
  }
  return lines;
}
