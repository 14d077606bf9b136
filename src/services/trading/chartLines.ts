import type { LegPlace, LegState, PositionProtection } from '../../contracts/protection';
import type { Position } from '../../contracts/trading';
import { formatPrice, formatSize } from './format';
import { STATE_TEXT, exitTime } from './protectionView';

/**
 * A position drawn on its chart, without the chart: a horizontal line for the entry, the liquidation
 * price, the stop and the target, and a time marker for each deadline the app runs (a time exit, a
 * rule's max hold). Colours are the positions pane's: the side's green or red for the entry, amber for
 * the liquidation, and a leg the app runs in the pane's "app" blue, so it never passes for one the
 * venue holds.
 */

export const LINE_COLORS = {
  long: '#0ecb81',
  short: '#f6465d',
  liquidation: '#f0b90b',
  stop: '#f6465d',
  target: '#0ecb81',
  app: '#8fa8d8',
} as const;

export type ChartLineKind = 'entry' | 'liq' | 'sl' | 'tp';
export type LineStyle = 'solid' | 'dashed' | 'dotted';

export interface ChartLine {
  kind: ChartLineKind;
  price: number;
  /** What the line says beside its price: `LONG 0.005`, `Liq.`, `SL exchange`, `TP app placing`. */
  title: string;
  /** The legend's words, with the price: `SL 94,000.0000 exchange`, `Liq. 87,010.1234`. */
  legend: string;
  color: string;
  style: LineStyle;
  /** Stop and target lines that still work: they can be dragged to a new price. */
  draggable: boolean;
  /** Where a leg rests; null for the entry and the liquidation. */
  place: LegPlace | null;
  state: LegState | null;
}

export interface ChartDeadline {
  kind: 'exit' | 'hold';
  /** When (ms since the epoch). */
  at: number;
  /** `Exit 14:30 UTC`, `Hold until 14:30 UTC (rule 'ETH longs')`. */
  label: string;
}

/** What the chart shows of one position: its lines, its deadlines, and the legs that are not lines. */
export interface PositionChart {
  symbol: string;
  side: Position['side'];
  entry: number;
  mark: number;
  lines: readonly ChartLine[];
  deadlines: readonly ChartDeadline[];
  /** A leg without a price of its own on the wire (the trailing stop): `Trail 1% exchange`. */
  notes: readonly string[];
  /** The protection as the server sent it: a move sends the other legs again as they stand. */
  protection: PositionProtection;
}

/** A rule that opened the position and closes it after its max hold. */
export interface HoldDeadline {
  ruleName: string;
  /** When the rule decided (ISO): the max hold counts from there, as the server counts it. */
  decidedAt: string;
  maxHoldMinutes: number;
}

const working = (state: LegState): boolean => state !== 'triggered' && state !== 'refused';

/** `SL exchange`, `TP 101,000.0000 app placing`: the leg, where it rests, and its state unless resting. */
function legTitle(
  label: string,
  on: LegPlace,
  state: LegState,
  price: { symbol: string; value: number } | null = null,
): string {
  return [
    label,
    price === null ? null : formatPrice(price.symbol, price.value),
    on,
    state === 'resting' ? null : STATE_TEXT[state],
  ]
    .filter((t) => t !== null)
    .join(' ');
}

function legLine(
  symbol: string,
  kind: 'sl' | 'tp',
  leg: PositionProtection['stop_loss'],
  color: string,
): ChartLine | null {
  if (leg === null || !working(leg.state)) return null;
  const app = leg.on === 'app';
  return {
    kind,
    price: leg.price,
    title: legTitle(kind === 'sl' ? 'SL' : 'TP', leg.on, leg.state),
    legend: legTitle(kind === 'sl' ? 'SL' : 'TP', leg.on, leg.state, { symbol, value: leg.price }),
    color: app ? LINE_COLORS.app : color,
    style: app ? 'dotted' : 'dashed',
    draggable: true,
    place: leg.on,
    state: leg.state,
  };
}

function deadlines(p: PositionProtection, hold: HoldDeadline | null): ChartDeadline[] {
  const out: ChartDeadline[] = [];
  const exitAt = p.exit_at === null ? NaN : Date.parse(p.exit_at);
  if (p.exit_at !== null && Number.isFinite(exitAt)) {
    out.push({ kind: 'exit', at: exitAt, label: `Exit ${exitTime(p.exit_at).slice(11)} app` });
  }
  const decided = hold === null ? NaN : Date.parse(hold.decidedAt);
  if (hold !== null && Number.isFinite(decided) && hold.maxHoldMinutes > 0) {
    const at = decided + hold.maxHoldMinutes * 60_000;
    const time = exitTime(new Date(at).toISOString()).slice(11);
    out.push({ kind: 'hold', at, label: `Hold until ${time} app (rule '${hold.ruleName}')` });
  }
  return out;
}

/**
 * The chart of `position` (on the chart's pair), or null when there is none: the entry with its side
 * and size, the liquidation price (when the venue gives one), each stop and target still working, and
 * the deadlines. A leg that fired or was refused is not drawn (the positions pane still lists it).
 */
export function positionChart(
  position: Position | undefined,
  hold: HoldDeadline | null = null,
): PositionChart | null {
  if (position === undefined || position.size === 0) return null;
  const side = position.side;
  const lines: ChartLine[] = [
    {
      kind: 'entry',
      price: position.entryPrice,
      title: `${side.toUpperCase()} ${formatSize(position.size)}`,
      legend: `${side.toUpperCase()} ${formatSize(position.size)} @ ${formatPrice(position.symbol, position.entryPrice)}`,
      color: LINE_COLORS[side],
      style: 'solid',
      draggable: false,
      place: null,
      state: null,
    },
  ];
  if (Number.isFinite(position.liquidationPrice) && position.liquidationPrice > 0) {
    lines.push({
      kind: 'liq',
      price: position.liquidationPrice,
      title: 'Liq.',
      legend: `Liq. ${formatPrice(position.symbol, position.liquidationPrice)}`,
      color: LINE_COLORS.liquidation,
      style: 'dotted',
      draggable: false,
      place: null,
      state: null,
    });
  }
  const p = position.protection;
  for (const line of [
    legLine(position.symbol, 'sl', p.stop_loss, LINE_COLORS.stop),
    legLine(position.symbol, 'tp', p.take_profit, LINE_COLORS.target),
  ]) {
    if (line !== null) lines.push(line);
  }
  const notes =
    p.trailing !== null && working(p.trailing.state)
      ? [legTitle(`Trail ${Number(p.trailing.callback_pct.toFixed(4))}%`, p.trailing.on, p.trailing.state)]
      : [];
  return {
    symbol: position.symbol,
    side,
    entry: position.entryPrice,
    mark: position.markPrice,
    lines,
    deadlines: deadlines(p, hold),
    notes,
    protection: p,
  };
}
