import type { OutputLine } from './output';

/**
 * Where `text` must break to fit `columns`: the indices of the spaces that become line ends. A line
 * breaks at the last space that fits; a word longer than a whole row is left for the terminal to cut.
 */
export function wrapPoints(text: string, columns: number): number[] {
  if (!Number.isFinite(columns) || columns < 2) return [];
  const points: number[] = [];
  let lineStart = 0;
  let lastSpace = -1;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\n') {
      lineStart = i + 1;
      lastSpace = -1;
      continue;
    }
    if (i - lineStart >= columns) {
      if (ch === ' ') {
        points.push(i);
        lineStart = i + 1;
        lastSpace = -1;
        continue;
      }
      if (lastSpace >= lineStart) {
        points.push(lastSpace);
        lineStart = lastSpace + 1;
      } else {
        lineStart = i; // One long word: the terminal cuts it where the row ends.
      }
      lastSpace = -1;
    }
    if (ch === ' ') lastSpace = i;
  }
  return points;
}

const breakAt = (text: string, offset: number, points: readonly number[]): string => {
  let out = text;
  for (const point of points) {
    const at = point - offset;
    if (at >= 0 && at < text.length) out = `${out.slice(0, at)}\n${out.slice(at + 1)}`;
  }
  return out;
};

/** The line with its long rows broken at word boundaries to fit `columns` (colours and links kept). */
export function wrapLine(line: OutputLine, columns: number): OutputLine {
  const points = wrapPoints(line.text, columns);
  if (points.length === 0) return line;
  const text = breakAt(line.text, 0, points);
  if (line.segments === undefined) return { ...line, text };
  let offset = 0;
  const segments = line.segments.map((segment) => {
    const wrapped = { ...segment, text: breakAt(segment.text, offset, points) };
    offset += segment.text.length;
    return wrapped;
  });
  return { ...line, text, segments };
}

/** Where a cell `offset` characters into a block drawn from column 0 sits: row and column. */
export function cellOf(offset: number, columns: number): { row: number; column: number } {
  if (!Number.isFinite(columns) || columns < 1) return { row: 0, column: offset };
  return { row: Math.floor(offset / columns), column: offset % columns };
}

/**
 * Where the cursor is after writing `length` characters from column 0. A row filled to its last cell
 * leaves the cursor there (the terminal wraps only when the next character comes).
 */
export function endOf(length: number, columns: number): { row: number; column: number } {
  if (length > 0 && Number.isFinite(columns) && length % columns === 0) {
    return { row: length / columns - 1, column: columns - 1 };
  }
  return cellOf(length, columns);
}

/**
 * One-line text laid out for rows of `columns` cells with spaces instead of line ends: each row ends
 * on a word boundary while every character keeps its cell (the prompt and questions are drawn so,
 * since the cursor is placed by counting cells). Text holding line ends is returned as it is.
 */
export function padWrap(text: string, columns: number): string {
  if (text.includes('\n')) return text;
  let out = '';
  let from = 0;
  for (const point of wrapPoints(text, columns)) {
    out += text.slice(from, point);
    const used = out.length % columns;
    out += used === 0 ? '' : ' '.repeat(columns - used);
    from = point + 1;
  }
  return out + text.slice(from);
}
