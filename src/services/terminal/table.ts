import { styled, type OutputLine, type Segment, type SegmentStyle } from './output';

export interface Column {
  header: string;
  /** Numbers read best right-aligned; text left-aligned (the default). */
  align?: 'left' | 'right';
}

/** A cell: its text, and a colour for sides and gains or losses. */
export type Cell = string | { text: string; style?: SegmentStyle };

const cellText = (cell: Cell): string => (typeof cell === 'string' ? cell : cell.text);
const cellStyle = (cell: Cell): SegmentStyle | undefined =>
  typeof cell === 'string' ? undefined : cell.style;

/** The colour of a side word: `LONG`/`buy` green, `SHORT`/`sell` red. */
export function sideStyle(side: string): SegmentStyle | undefined {
  const s = side.toLowerCase();
  if (s === 'long' || s === 'buy') return 'long';
  if (s === 'short' || s === 'sell') return 'short';
  return undefined;
}

/** The colour of a signed amount: green above zero, red below. */
export function pnlStyle(value: number | null | undefined): SegmentStyle | undefined {
  if (value === null || value === undefined || !Number.isFinite(value) || value === 0) return undefined;
  return value > 0 ? 'gain' : 'loss';
}

/**
 * An aligned table: a header row, then one line per row, columns two spaces apart. Every cell keeps its
 * colour, and each line's `text` is the plain row (for logs, tests and screen readers).
 */
export function table(columns: readonly Column[], rows: readonly (readonly Cell[])[]): OutputLine[] {
  const widths = columns.map((c, i) =>
    Math.max(c.header.length, ...rows.map((r) => cellText(r[i] ?? '').length)),
  );
  const pad = (text: string, i: number): string =>
    columns[i]?.align === 'right' ? text.padStart(widths[i] ?? 0) : text.padEnd(widths[i] ?? 0);
  const line = (cells: readonly Cell[], header: boolean): OutputLine => {
    const segments: Segment[] = [];
    columns.forEach((_, i) => {
      const cell = cells[i] ?? '';
      if (i > 0) segments.push({ text: '  ' });
      const style = header ? 'header' : cellStyle(cell);
      segments.push({ text: pad(cellText(cell), i), ...(style === undefined ? {} : { style }) });
    });
    // Trailing blanks of the last column are dropped, so lines end with their text.
    const last = segments.at(-1);
    if (last !== undefined) segments[segments.length - 1] = { ...last, text: last.text.trimEnd() };
    return styled(segments, header ? 'muted' : 'info');
  };
  return [
    line(
      columns.map((c) => c.header),
      true,
    ),
    ...rows.map((r) => line(r, false)),
  ];
}
