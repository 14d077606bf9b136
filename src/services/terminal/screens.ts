import type { EditBlock } from './render';
import { cellOf, endOf } from './wrap';

/** Where the session draws: an xterm instance in the browser, a string buffer in tests. */
export interface Screen {
  write(data: string): void;
  /** Its width in cells: output is wrapped on word boundaries to fit, and long lines redrawn whole. */
  columns?(): number;
}

/**
 * The screens a terminal session draws on, written to together, and where the cursor stands within the
 * drawn prompt block, so that the block can be erased and drawn again when it wraps over several rows.
 */
export interface Screens {
  add(screen: Screen): void;
  /** Answers how many screens are left. */
  remove(screen: Screen): number;
  write(data: string): void;
  /** The screens' width in cells (the narrowest); no limit when no screen tells. */
  columns(): number;
  /** Goes back to the top of the drawn prompt and erases it and everything below. */
  erase(): string;
  /** Draws a prompt block from the start of the row and puts the cursor where it belongs. */
  place(block: EditBlock): string;
  /** The cursor is at the start of a fresh row (after a newline or a full redraw). */
  atRowStart(): void;
}

export function createScreens(): Screens {
  const screens = new Set<Screen>();
  /** Rows from the top of the drawn prompt (or question) down to the cursor: a long line wraps. */
  let cursorRow = 0;

  const columns = (): number => {
    let width = Infinity;
    for (const screen of screens) width = Math.min(width, screen.columns?.() ?? Infinity);
    return width;
  };

  return {
    add: (screen) => {
      screens.add(screen);
    },
    remove: (screen) => {
      screens.delete(screen);
      return screens.size;
    },
    write: (data) => {
      for (const screen of screens) screen.write(data);
    },
    columns,
    erase: () => {
      const up = cursorRow > 0 ? `\x1b[${cursorRow}A` : '';
      cursorRow = 0;
      return `\r${up}\x1b[J`;
    },
    place: (block) => {
      const width = columns();
      let out = block.text;
      let end = endOf(block.length, width);
      // A row filled to its last cell: start the next one, so the cursor can stand after the text.
      if (block.cursor >= block.length && end.column === width - 1 && block.length > 0) {
        out += ' \r';
        end = { row: end.row + 1, column: 0 };
      }
      const at = cellOf(block.cursor, width);
      const up = end.row - at.row;
      cursorRow = at.row;
      return `${out}${up > 0 ? `\x1b[${up}A` : ''}\x1b[${at.column + 1}G`;
    },
    atRowStart: () => {
      cursorRow = 0;
    },
  };
}
