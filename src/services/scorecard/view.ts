import type { ScoreGroup, ScoreHorizon, Scorecard } from '../../contracts/scorecard';
import { formatMove, formatRate, formatSize } from './scorecard';
import { utcStamp } from '../time';

const DAY_MS = 86_400_000;

/** `last 7 days`, or `since 2026-01-01 10:00:00 UTC` for a window that is not a whole number of days. */
export function windowText(card: Pick<Scorecard, 'since' | 'until'>): string {
  const days = (Date.parse(card.until) - Date.parse(card.since)) / DAY_MS;
  const whole = Math.round(days);
  // The window ends a millisecond after "now" (its end is exclusive).
  if (whole >= 1 && Math.abs(days - whole) < 1e-6) return whole === 1 ? 'last day' : `last ${whole} days`;
  return `since ${utcStamp(card.since)}`;
}

/** `Last 7 days · 12 signals measured` (the modal names the price source beside it). */
export function summaryText(card: Scorecard): string {
  const n = card.overall.signals;
  const window = windowText(card);
  return `${window[0]?.toUpperCase() ?? ''}${window.slice(1)} · ${n} signal${n === 1 ? '' : 's'} measured`;
}

/** One group at one horizon, as text: a table row of the modal. */
export interface ScoreRowView {
  key: string;
  signals: number;
  /** Moves measured at this horizon. */
  moves: number;
  hit: string;
  move: string;
  /** Which way the mean move went, for its colour. */
  tone: 'up' | 'down' | 'flat';
}

/** Rows of some groups at one horizon; the `neutral` group shows the size of its moves, with no rate. */
export function rowsAt(groups: readonly ScoreGroup[], horizon: ScoreHorizon): ScoreRowView[] {
  return groups.map((g) => {
    const h = g.horizons.find((x) => x.horizon === horizon);
    const neutral = g.key === 'neutral';
    const mean = neutral ? null : (h?.mean_move ?? null);
    return {
      key: g.key,
      signals: g.signals,
      moves: h?.count ?? 0,
      hit: neutral ? '—' : formatRate(h?.hit_rate ?? null),
      move: neutral ? formatSize(h?.neutral_abs_move ?? null) : formatMove(mean),
      tone: mean === null || Math.abs(mean) < 0.005 ? 'flat' : mean > 0 ? 'up' : 'down',
    };
  });
}
