import type { Key } from './keys';
import { commonPrefix, findMatch, type SearchState } from './search';

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
  /** The last key was a Tab that left several candidates: the next Tab lists them. */
  tabbed: boolean;
  /** This run of Tabs has already listed the candidates: further Tabs ring instead of listing again. */
  listed: boolean;
  /** Ctrl+R reverse search in progress. */
  search: SearchState | null;
}

export type EditorEffect =
  | { type: 'submit'; line: string }
  | { type: 'interrupt'; line: string }
  | { type: 'candidates'; items: readonly string[] }
  | { type: 'clear-screen' }
  | { type: 'bell' };

export interface EditorResult {
  state: EditorState;
  effects: EditorEffect[];
}

/** What Tab offers for the text before the cursor: candidates for the word starting at `from`. */
export type Completer = (before: string) => { from: number; candidates: readonly string[] };

export const NO_COMPLETION: Completer = (before) => ({ from: before.length, candidates: [] });

/** Lines of history kept (and persisted) per user. */
export const HISTORY_LIMIT = 500;

export const emptyEditor = (history: readonly string[] = []): EditorState => ({
  buffer: '',
  cursor: 0,
  history,
  historyIndex: null,
  draft: '',
  tabbed: false,
  listed: false,
  search: null,
});

const edit = (state: EditorState, buffer: string, cursor: number): EditorState => ({
  ...state,
  buffer,
  cursor,
  historyIndex: null,
});

const only = (state: EditorState, ...effects: EditorEffect[]): EditorResult => ({ state, effects });

/**
 * The inline suggestion shown after the cursor: the rest of the latest history line that starts with
 * what is typed. Empty while the line is empty, the cursor is not at its end, or nothing matches.
 */
export function ghost(state: EditorState): string {
  if (state.buffer.trim() === '' || state.cursor !== state.buffer.length || state.search !== null) return '';
  for (let i = state.history.length - 1; i >= 0; i -= 1) {
    const line = state.history[i] ?? '';
    if (line.length > state.buffer.length && line.startsWith(state.buffer)) {
      return line.slice(state.buffer.length);
    }
  }
  return '';
}

/** The line the search shows, or the buffer when the search found nothing yet. */
export const searchLine = (state: EditorState): string =>
  state.search?.index == null ? state.buffer : (state.history[state.search.index] ?? state.buffer);

export function applyKey(state: EditorState, key: Key, complete: Completer): EditorResult {
  if (state.search !== null) return searchKey(state, state.search, key, complete);
  const result = editKey({ ...state }, key, complete);
  // Any key but Tab ends a run of Tabs.
  return key.type === 'tab'
    ? result
    : { ...result, state: { ...result.state, tabbed: false, listed: false } };
}

function editKey(state: EditorState, key: Key, complete: Completer): EditorResult {
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
    case 'end': {
      // At the end of the line, → and End take the history suggestion.
      const suggestion = ghost(state);
      if (suggestion !== '') return only(edit(state, buffer + suggestion, buffer.length + suggestion.length));
      return only({
        ...state,
        cursor: key.type === 'end' ? buffer.length : Math.min(buffer.length, cursor + 1),
      });
    }
    case 'home':
      return only({ ...state, cursor: 0 });
    case 'up':
      return browse(state, -1);
    case 'down':
      return browse(state, 1);
    case 'tab':
      return completeWord(state, complete);
    case 'search':
      return only({ ...state, search: { query: '', index: null, original: buffer } });
    case 'clear-screen':
      return only(state, { type: 'clear-screen' });
    case 'escape':
      return only(state);
    case 'interrupt':
      return only(emptyEditor(state.history), { type: 'interrupt', line: buffer });
    case 'enter':
      return only(emptyEditor(remember(state.history, buffer)), { type: 'submit', line: buffer });
  }
}

/** Keys during Ctrl+R: typing narrows, Ctrl+R finds an older match, Enter runs it, Esc gives up. */
function searchKey(state: EditorState, search: SearchState, key: Key, complete: Completer): EditorResult {
  const found = (query: string, from: number): EditorResult => {
    const index = findMatch(state.history, query, from);
    if (index === null) return only({ ...state, search: { ...search, query } }, { type: 'bell' });
    return only({ ...state, search: { ...search, query, index } });
  };
  const latest = state.history.length - 1;
  switch (key.type) {
    case 'text':
      return found(search.query + key.text, search.index ?? latest);
    case 'backspace':
      return found(search.query.slice(0, -1), latest);
    case 'search':
      return search.index === null ? only(state, { type: 'bell' }) : found(search.query, search.index - 1);
    case 'escape':
      return only({ ...state, search: null, buffer: search.original, cursor: search.original.length });
    case 'interrupt':
      return only(emptyEditor(state.history), { type: 'interrupt', line: searchLine(state) });
    case 'enter': {
      const line = searchLine(state);
      return applyKey({ ...state, search: null, buffer: line, cursor: line.length }, key, complete);
    }
    default: {
      // Moving or editing keys take the match into the line and leave the search.
      const line = searchLine(state);
      return only({ ...state, search: null, buffer: line, cursor: line.length, historyIndex: null });
    }
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
    case 'search':
    case 'clear-screen':
      return only(state, { type: 'bell' });
    case 'left':
    case 'right':
    case 'home':
    case 'end':
    case 'delete':
      return secret ? only(state, { type: 'bell' }) : applyKey(state, key, NO_COMPLETION);
    case 'enter':
      return only(emptyEditor(state.history), { type: 'submit', line: state.buffer });
    default:
      return applyKey(state, key, NO_COMPLETION);
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

/** The history with `line` added last (blank lines and an immediate repeat are not kept). */
export function remember(history: readonly string[], line: string): readonly string[] {
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

/**
 * Tab: completes the word before the cursor. One candidate is taken whole (with a space after); several
 * extend the word to what they share, a second Tab lists them once, and further Tabs only ring.
 */
function completeWord(state: EditorState, complete: Completer): EditorResult {
  const before = state.buffer.slice(0, state.cursor);
  const after = state.buffer.slice(state.cursor);
  if (/^\S/.test(after)) return only({ ...state, tabbed: false }, { type: 'bell' });
  const { from, candidates } = complete(before);
  const prefix = before.slice(from);
  const lead = before.slice(0, from);
  const [first] = candidates;
  if (first === undefined) return only({ ...state, tabbed: false }, { type: 'bell' });
  if (candidates.length === 1) {
    const word = after.startsWith(' ') ? first : `${first} `;
    return only({ ...edit(state, lead + word + after, lead.length + word.length), tabbed: false });
  }
  const common = commonPrefix(candidates);
  if (common.length > prefix.length) {
    return only({ ...edit(state, lead + common + after, lead.length + common.length), tabbed: true });
  }
  if (state.listed) return only(state, { type: 'bell' });
  if (state.tabbed) return only({ ...state, listed: true }, { type: 'candidates', items: candidates });
  return only({ ...state, tabbed: true }, { type: 'bell' });
}
