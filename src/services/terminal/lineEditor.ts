import type { Key } from './keys';

/** The command line being edited, and the lines run before. Pure data: no terminal needed. */
export interface EditorState {
  buffer: string;
  /** Position of the cursor within `buffer`, 0..buffer.length. */
  cursor: number;
  /** Lines run before, oldest first. */
  history: readonly string[];
  /** Which history entry is shown, or null while editing a fresh line. */
  historyIndex: number | null;
  /** The fresh line, kept while browsing history. */
  draft: string;
}

export type EditorEffect =
  | { type: 'submit'; line: string }
  | { type: 'interrupt'; line: string }
  | { type: 'candidates'; items: readonly string[] }
  | { type: 'bell' };

export interface EditorResult {
  state: EditorState;
  effects: EditorEffect[];
}

/** Command names starting with a prefix (the registry's `complete`). */
export type Completer = (prefix: string) => readonly string[];

export const HISTORY_LIMIT = 100;

export const emptyEditor = (history: readonly string[] = []): EditorState => ({
  buffer: '',
  cursor: 0,
  history,
  historyIndex: null,
  draft: '',
});

const edit = (state: EditorState, buffer: string, cursor: number): EditorState => ({
  ...state,
  buffer,
  cursor,
  historyIndex: null,
});

const only = (state: EditorState, ...effects: EditorEffect[]): EditorResult => ({ state, effects });

export function applyKey(state: EditorState, key: Key, complete: Completer): EditorResult {
  const { buffer, cursor } = state;
  switch (key.type) {
    case 'text':
      return only(
        edit(state, buffer.slice(0, cursor) + key.text + buffer.slice(cursor), cursor + key.text.length),
      );
    case 'backspace':
      if (cursor === 0) return only(state, { type: 'bell' });
      return only(edit(state, buffer.slice(0, cursor - 1) + buffer.slice(cursor), cursor - 1));
    case 'delete':
      if (cursor === buffer.length) return only(state, { type: 'bell' });
      return only(edit(state, buffer.slice(0, cursor) + buffer.slice(cursor + 1), cursor));
    case 'left':
      return only({ ...state, cursor: Math.max(0, cursor - 1) });
    case 'right':
      return only({ ...state, cursor: Math.min(buffer.length, cursor + 1) });
    case 'home':
      return only({ ...state, cursor: 0 });
    case 'end':
      return only({ ...state, cursor: buffer.length });
    case 'up':
      return browse(state, -1);
    case 'down':
      return browse(state, 1);
    case 'tab':
      return completeWord(state, complete);
    case 'interrupt':
      return only(emptyEditor(state.history), { type: 'interrupt', line: buffer });
    case 'enter':
      return only(emptyEditor(remember(state.history, buffer)), { type: 'submit', line: buffer });
  }
}

/**
 * Keys while answering a question: plain editing without history or completion. Enter answers (and is
 * not remembered), Ctrl+C cancels. A secret answer is not shown, so moving the cursor in it only rings.
 */
export function applyAnswerKey(state: EditorState, key: Key, secret: boolean): EditorResult {
  switch (key.type) {
    case 'up':
    case 'down':
    case 'tab':
      return only(state, { type: 'bell' });
    case 'left':
    case 'right':
    case 'home':
    case 'end':
    case 'delete':
      return secret ? only(state, { type: 'bell' }) : applyKey(state, key, () => []);
    case 'enter':
      return only(emptyEditor(state.history), { type: 'submit', line: state.buffer });
    default:
      return applyKey(state, key, () => []);
  }
}

/** Applies keys in order, collecting every effect. */
export function applyKeys(state: EditorState, keys: readonly Key[], complete: Completer): EditorResult {
  return keys.reduce<EditorResult>(
    (acc, key) => {
      const next = applyKey(acc.state, key, complete);
      return { state: next.state, effects: [...acc.effects, ...next.effects] };
    },
    { state, effects: [] },
  );
}

function remember(history: readonly string[], line: string): readonly string[] {
  const trimmed = line.trim();
  if (trimmed === '' || history[history.length - 1] === trimmed) return history;
  return [...history, trimmed].slice(-HISTORY_LIMIT);
}

function browse(state: EditorState, step: -1 | 1): EditorResult {
  const { history, historyIndex } = state;
  if (history.length === 0) return only(state, { type: 'bell' });
  const from = historyIndex ?? history.length;
  const to = from + step;
  if (to < 0) return only(state, { type: 'bell' });
  if (to >= history.length) {
    if (historyIndex === null) return only(state, { type: 'bell' });
    return only({ ...state, buffer: state.draft, cursor: state.draft.length, historyIndex: null });
  }
  const line = history[to] ?? '';
  const draft = historyIndex === null ? state.buffer : state.draft;
  return only({ ...state, buffer: line, cursor: line.length, historyIndex: to, draft });
}

/** Completes the command name (the first word) when the cursor is inside it. */
function completeWord(state: EditorState, complete: Completer): EditorResult {
  const before = state.buffer.slice(0, state.cursor);
  if (/\s/.test(before.trimStart()) || state.buffer.slice(state.cursor).match(/^\S/)) {
    return only(state, { type: 'bell' });
  }
  const prefix = before.trimStart();
  const lead = before.slice(0, before.length - prefix.length);
  const items = complete(prefix);
  const first = items[0];
  if (first === undefined) return only(state, { type: 'bell' });
  if (items.length === 1) {
    const rest = state.buffer.slice(state.cursor);
    const word = rest.startsWith(' ') ? first : `${first} `;
    return only(edit(state, lead + word + rest, lead.length + word.length));
  }
  const common = commonPrefix(items);
  const extended =
    common.length > prefix.length ? edit(state, lead + common, lead.length + common.length) : state;
  return only(extended, { type: 'candidates', items });
}

function commonPrefix(items: readonly string[]): string {
  return items.reduce((acc, item) => {
    let n = 0;
    while (n < acc.length && acc[n] === item[n]) n += 1;
    return acc.slice(0, n);
  });
}
