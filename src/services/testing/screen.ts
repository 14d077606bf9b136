/**
 * A tiny terminal emulator for tests: enough of VT100 to replay what the terminal session writes
 * (text, CR, LF, erase line, erase below, cursor up and column, clear screen; colours are ignored)
 * and read the rows. Given a width, it wraps like xterm: a full row wraps when the next character comes.
 */
export interface VirtualScreen {
  write(data: string): void;
  /** The rows, trailing spaces trimmed, trailing empty rows dropped. */
  rows(): string[];
  cursor(): { row: number; col: number };
  /** The targets of the OSC 8 hyperlinks written so far, in order. */
  links(): string[];
  /** The width given, for the session to wrap to (absent: rows never wrap). */
  columns?(): number;
}

export function createVirtualScreen(width = Infinity): VirtualScreen {
  let rows: string[][] = [[]];
  let row = 0;
  let col = 0;
  const links: string[] = [];
  const line = (): string[] => (rows[row] ??= []);

  const control = (params: string, final: string): void => {
    const n = Number.parseInt(params || '1', 10);
    if (final === 'K') rows[row] = params === '2' ? [] : line().slice(0, col);
    else if (final === 'G') col = Math.min(n - 1, width - 1);
    else if (final === 'A') {
      row = Math.max(0, row - n);
      col = Math.min(col, width - 1);
    } else if (final === 'J' && (params === '2' || params === '3')) rows = [[]];
    else if (final === 'J') {
      rows[row] = line().slice(0, col);
      rows = rows.slice(0, row + 1);
    } else if (final === 'H') row = col = 0;
    // 'm' (colour) and anything else: no effect on the text.
  };

  return {
    write(data) {
      for (let i = 0; i < data.length; i += 1) {
        const ch = data[i] ?? '';
        if (ch === '\x1b' && data[i + 1] === ']') {
          // An OSC sequence (hyperlinks): up to BEL; only the link target is kept.
          const end = data.indexOf('\x07', i);
          const body = data.slice(i + 2, end < 0 ? data.length : end);
          const target = /^8;[^;]*;(.+)$/.exec(body)?.[1];
          if (target !== undefined) links.push(target);
          i = end < 0 ? data.length : end;
          continue;
        }
        if (ch === '\x1b' && data[i + 1] === '[') {
          // eslint-disable-next-line no-control-regex -- reading escape sequences is this emulator's job
          const match = /^\x1b\[([0-9;]*)([A-Za-z])/.exec(data.slice(i));
          if (match !== null) {
            control(match[1] ?? '', match[2] ?? '');
            i += match[0].length - 1;
            continue;
          }
        }
        if (ch === '\r') col = 0;
        else if (ch === '\n') row += 1;
        else if (ch >= ' ') {
          if (col >= width) {
            row += 1;
            col = 0;
          }
          const current = line();
          while (current.length < col) current.push(' ');
          current[col] = ch;
          col += 1;
        }
      }
    },
    rows() {
      const text = Array.from({ length: Math.max(rows.length, row + 1) }, (_, r) =>
        (rows[r] ?? []).join('').trimEnd(),
      );
      while (text.length > 0 && text[text.length - 1] === '') text.pop();
      return text;
    },
    cursor: () => ({ row, col }),
    links: () => [...links],
    ...(Number.isFinite(width) ? { columns: () => width } : {}),
  };
}
