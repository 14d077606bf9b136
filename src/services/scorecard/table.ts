import type { ScoreGroup, ScoreHorizon, Scorecard } from '../../contracts/scorecard';
import { muted, styled, type OutputLine } from '../terminal/output';
import { pnlStyle, table, type Cell, type Column } from '../terminal/table';
import { formatMove, formatRate, formatSize, priceNote } from './scorecard';
import { windowText } from './view';

/** Longer source names are cut so the table fits a narrow terminal. */
const NAME_WIDTH = 18;

const cut = (name: string): string => (name.length > NAME_WIDTH ? `${name.slice(0, NAME_WIDTH - 1)}…` : name);

/** One horizon of a group: its hit rate and mean move, or for neutral items the size of their moves. */
function cells(group: ScoreGroup, horizon: ScoreHorizon, neutral: boolean): [Cell, Cell] {
  const h = group.horizons.find((x) => x.horizon === horizon);
  if (h === undefined) return ['—', '—'];
  if (neutral) return ['—', formatSize(h.neutral_abs_move)];
  return [formatRate(h.hit_rate), { text: formatMove(h.mean_move), style: pnlStyle(h.mean_move) }];
}

/** One compact table: a row per group, hit rate then mean move per horizon, and the signal count. */
function groupTable(title: string, groups: readonly ScoreGroup[], horizons: readonly ScoreHorizon[]) {
  const columns: Column[] = [
    { header: title },
    { header: 'SIGNALS', align: 'right' },
    ...horizons.map((h): Column => ({ header: `HIT ${h}`, align: 'right' })),
    ...horizons.map((h): Column => ({ header: `MOVE ${h}`, align: 'right' })),
  ];
  const rows = groups.map((g): Cell[] => {
    const neutral = title === 'SENTIMENT' && g.key === 'neutral';
    const per = horizons.map((h) => cells(g, h, neutral));
    return [cut(g.key), String(g.signals), ...per.map((c) => c[0]), ...per.map((c) => c[1])];
  });
  return table(columns, rows);
}

/**
 * The scorecard as terminal lines: a heading that names the window and the price source, then one
 * table per grouping (impact band, sentiment, source) with the overall row first.
 */
export function scorecardLines(card: Scorecard): OutputLine[] {
  const count = card.overall.signals;
  const lines: OutputLine[] = [
    styled([
      { text: `Signal scorecard, ${windowText(card)} ` },
      { text: `(${priceNote(card)})`, ...(card.price_source === 'sim' ? { style: 'muted' as const } : {}) },
      { text: `: ${count} signal${count === 1 ? '' : 's'} measured.` },
    ]),
  ];
  if (count === 0) {
    lines.push(muted('Nothing measured yet: prices are taken 1, 5 and 30 minutes after a signal arrives.'));
    return lines;
  }
  lines.push(
    muted(
      "HIT: share of positive and negative signals the price followed; MOVE: mean % the sentiment's way.",
    ),
    muted('Neutral signals have no direction: their MOVE is the mean size of the move.'),
  );
  const h = card.horizons;
  lines.push(...groupTable('IMPACT', [card.overall, ...card.by_impact], h));
  lines.push(...groupTable('SENTIMENT', card.by_sentiment, h));
  if (card.by_source.length > 0) lines.push(...groupTable('SOURCE', card.by_source, h));
  return lines;
}
