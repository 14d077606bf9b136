/** A key the line editor understands, decoded from terminal input. */
export type Key =
  | { type: 'text'; text: string }
  | {
      type:
        | 'enter'
        | 'backspace'
        | 'delete'
        | 'left'
        | 'right'
        | 'home'
        | 'end'
        | 'up'
        | 'down'
        | 'tab'
        | 'interrupt'
        | 'search'
        | 'clear-screen'
        | 'escape';
    };

type NamedKey = Exclude<Key, { type: 'text' }>['type'];

const SEQUENCES: ReadonlyArray<readonly [string, NamedKey]> = [
  ['\x1b[A', 'up'],
  ['\x1b[B', 'down'],
  ['\x1b[C', 'right'],
  ['\x1b[D', 'left'],
  ['\x1b[H', 'home'],
  ['\x1b[F', 'end'],
  ['\x1bOA', 'up'],
  ['\x1bOB', 'down'],
  ['\x1bOC', 'right'],
  ['\x1bOD', 'left'],
  ['\x1bOH', 'home'],
  ['\x1bOF', 'end'],
  ['\x1b[1~', 'home'],
  ['\x1b[4~', 'end'],
  ['\x1b[3~', 'delete'],
];

const CONTROLS: Readonly<Record<string, NamedKey>> = {
  '\r': 'enter',
  '\n': 'enter',
  '\x7f': 'backspace',
  '\b': 'backspace',
  '\t': 'tab',
  '\x03': 'interrupt',
  '\x01': 'home',
  '\x05': 'end',
  '\x12': 'search',
  '\x0c': 'clear-screen',
  '\x07': 'escape',
};

/**
 * Splits what a terminal sends (one key, an escape sequence, or a whole paste) into keys.
 * Unknown escape sequences and other control characters are dropped.
 */
export function decodeKeys(data: string): Key[] {
  const keys: Key[] = [];
  let text = '';
  const flush = (): void => {
    if (text !== '') keys.push({ type: 'text', text });
    text = '';
  };
  let i = 0;
  while (i < data.length) {
    const ch = data[i] ?? '';
    if (ch === '\x1b') {
      flush();
      const match = SEQUENCES.find(([seq]) => data.startsWith(seq, i));
      if (match !== undefined) {
        keys.push({ type: match[1] });
        i += match[0].length;
      } else if (i === data.length - 1) {
        keys.push({ type: 'escape' }); // A lone Esc key.
        i += 1;
      } else {
        i += skipUnknownEscape(data, i);
      }
      continue;
    }
    const control = CONTROLS[ch];
    if (control !== undefined) {
      flush();
      // A paste ending lines with \r\n is one Enter per line.
      if (!(ch === '\n' && data[i - 1] === '\r')) keys.push({ type: control });
    } else if (ch >= ' ') {
      text += ch;
    }
    i += 1;
  }
  flush();
  return keys;
}

/** Length of an unrecognised escape sequence starting at `start` (CSI/SS3 or a lone ESC). */
function skipUnknownEscape(data: string, start: number): number {
  const next = data[start + 1];
  if (next !== '[' && next !== 'O') return 1;
  let end = start + 2;
  while (end < data.length && /[0-9;?]/.test(data[end] ?? '')) end += 1;
  return end - start + 1;
}
