import type { Position } from '../../contracts/trading';
import { formatAmount2, formatPnl, formatSize, formatPrice, pnlTone } from './format';

/** docs/product.md §2 Open Positions columns, in order (ACTIONS is the pane's own). */
export const POSITION_COLUMNS = [
  'SYMBOL',
  'SIDE',
  'SIZE',
  'ENTRY PRICE',
  'MARK PRICE',
  'LIQ. PRICE',
  'MARGIN (USDT)',
  'UNREALIZED PNL',
] as const;

/** One position as the pane and the terminal show it: every cell already formatted. */
export interface PositionRow {
  symbol: string;
  side: 'LONG' | 'SHORT';
  cells: readonly string[];
  pnlTone: 'gain' | 'loss' | 'flat';
  /** ROE as a signed percentage, e.g. `+12.50%`. */
  roe: string;
}

export function positionRow(p: Position): PositionRow {
  const side = p.side === 'long' ? 'LONG' : 'SHORT';
  return {
    symbol: p.symbol,
    side,
    cells: [
      p.symbol,
      side,
      formatSize(p.size),
      formatPrice(p.symbol, p.entryPrice),
      formatPrice(p.symbol, p.markPrice),
      formatPrice(p.symbol, p.liquidationPrice),
      formatAmount2(p.margin),
      formatPnl(p.unrealizedPnl),
    ],
    pnlTone: pnlTone(p.unrealizedPnl),
    roe: `${p.roe > 0 ? '+' : ''}${(p.roe * 100).toFixed(2)}%`,
  };
}

/** Text columns left-aligned, numbers right-aligned, two spaces apart: the terminal's `positions`. */
export function positionsTable(positions: readonly Position[]): string[] {
  const rows = positions.map((p) => positionRow(p).cells);
  const all = [POSITION_COLUMNS as readonly string[], ...rows];
  const widths = POSITION_COLUMNS.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all.map((row) =>
    row
      .map((cell, i) => (i < 2 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

/** `LONG 0.01 BTC/USDT, entry 100,000.00`: what a confirmation says it will close. */
export function positionLine(p: Position): string {
  const row = positionRow(p);
  return `${row.side} ${row.cells[2]} ${p.symbol}, entry ${row.cells[3]}`;
}

/** `Unrealized PnL +12.30 USDT (+1.20%)`: what closing it now would realise, before fees. */
export function positionPnlLine(p: Position): string {
  const row = positionRow(p);
  return `Unrealized PnL ${row.cells[7]} USDT (${row.roe})`;
}

/** The details of "close all": one line per position, then the total unrealized PnL. */
export function closeAllLines(positions: readonly Position[]): string[] {
  const total = positions.reduce((sum, p) => sum + p.unrealizedPnl, 0);
  return [
    ...positions.map((p) => `${positionLine(p)}: ${positionRow(p).cells[7]} USDT`),
    `Total unrealized PnL ${formatPnl(total)} USDT`,
  ];
}
