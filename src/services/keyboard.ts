/** The parts of a key press the shortcuts look at. */
export interface KeyPress {
  key: string;
  code?: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  /** The press happened in a text field, a select or an editable element (xterm's input included). */
  inEditable: boolean;
  /** When it happened, in ms (the event's timeStamp); `g` then a letter must come within a second and a half. */
  time?: number;
  /** The press went to the command line while its prompt is empty and idle: `?` there is the key map. */
  atEmptyPrompt?: boolean;
}

/** The panes a key can focus, in the order of Ctrl+1..4. */
export const PANES = ['feed', 'chart', 'positions', 'terminal'] as const;
export type PaneId = (typeof PANES)[number];

export type ShortcutAction = { type: 'focus'; pane: PaneId } | { type: 'palette' } | { type: 'keymap' };

/** Every global key, as `?` shows it and docs/commands.md lists it. */
export const KEY_MAP: readonly { keys: string; does: string }[] = [
  { keys: 'Ctrl+K / Cmd+K', does: 'open the command palette' },
  { keys: '/ or Ctrl+`', does: 'focus the command line' },
  { keys: 'g f / g c / g p / g t', does: 'focus the feed, chart, positions or terminal' },
  { keys: 'Ctrl+1 … Ctrl+4', does: 'focus the feed, chart, positions or terminal' },
  { keys: '?', does: 'show this key map (at an empty command line too; inside a command it is typed)' },
  { keys: 'c / h / f', does: 'on a focused position row: close it, close half, flip it (asks first)' },
  { keys: 'Esc then Tab', does: 'leave the command line for the next control (Shift+Tab: the previous one)' },
  { keys: 'Tab, Tab Tab', does: 'complete a command, ticker, id or amount; list the candidates' },
  { keys: '↑ / ↓', does: 'walk through the history (kept per user)' },
  { keys: '→ or End', does: 'take the grey suggestion from history' },
  { keys: 'Ctrl+R', does: 'search the history backwards (again for older, Esc to leave)' },
  { keys: 'Ctrl+C', does: 'cancel the line, or the command that is running' },
  { keys: 'Ctrl+L', does: 'clear the terminal' },
  { keys: 'j / k (↓ / ↑)', does: 'in the feed: move to the next or the previous card' },
  { keys: 'Enter', does: "in the feed: open the focused card's source (on a button or a tag: press it)" },
  { keys: 'l / s', does: "in the feed: open the focused card's long or short quick-trade row" },
  { keys: '1 … 9', does: "in the feed, with a quick-trade row open: trade the row's 1st … 9th amount" },
  { keys: 'Esc', does: 'in the feed: close the quick-trade row' },
];

/** `/`, or Ctrl+` (backquote), pressed outside an input focuses the command line. */
export function isTerminalFocusShortcut(press: KeyPress): boolean {
  if (press.inEditable || press.altKey || press.metaKey) return false;
  if (press.ctrlKey) return press.key === '`' || press.code === 'Backquote';
  return press.key === '/';
}

const LETTER_PANES: Readonly<Record<string, PaneId>> = {
  f: 'feed',
  c: 'chart',
  p: 'positions',
  t: 'terminal',
};
/** How long `g` waits for its letter. */
export const SEQUENCE_MS = 1500;

/**
 * Reads key presses one by one and answers the action each completes, or null. Holds the pending `g`
 * of a two-key sequence; keys typed in a text field only count with Ctrl or Cmd.
 */
export function createShortcutReader(): (press: KeyPress) => ShortcutAction | null {
  let pendingG: number | null = null;
  return (press) => {
    const key = press.key.toLowerCase();
    if ((press.ctrlKey || press.metaKey) && !press.altKey && key === 'k') return { type: 'palette' };
    const digit = /^Digit([1-4])$/.exec(press.code ?? '')?.[1] ?? (/^[1-4]$/.test(key) ? key : undefined);
    if (press.ctrlKey && !press.altKey && !press.metaKey && digit !== undefined) {
      return { type: 'focus', pane: PANES[Number(digit) - 1] ?? 'terminal' };
    }
    if (isTerminalFocusShortcut(press)) return { type: 'focus', pane: 'terminal' };
    const plain = !press.ctrlKey && !press.metaKey && !press.altKey;
    if (press.key === '?' && plain && press.atEmptyPrompt === true) return { type: 'keymap' };
    if (press.inEditable || press.ctrlKey || press.metaKey || press.altKey) return null;
    const time = press.time ?? 0;
    const waiting = pendingG !== null && time - pendingG <= SEQUENCE_MS;
    pendingG = null;
    if (waiting && LETTER_PANES[key] !== undefined) return { type: 'focus', pane: LETTER_PANES[key] };
    if (key === 'g') pendingG = time;
    if (press.key === '?') return { type: 'keymap' };
    return null;
  };
}

/** A key event as the terminal sees it before xterm does. */
export interface TerminalKeyEvent {
  type: string;
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
}

/**
 * The keyboard way out of the command line, which takes Tab for completion: Esc, then Tab or
 * Shift+Tab, lets that Tab move focus like anywhere else on the page. Answers, for each key event,
 * whether xterm should handle it (false: the browser does).
 */
export function createTerminalEscape(): (event: TerminalKeyEvent) => boolean {
  let escaped = false;
  return (event) => {
    if (event.type !== 'keydown') return true;
    const plain = !event.ctrlKey && !event.metaKey && !event.altKey;
    if (event.key === 'Tab' && plain && escaped) {
      escaped = false;
      return false;
    }
    if (event.key !== 'Shift') escaped = event.key === 'Escape' && plain;
    return true;
  };
}
