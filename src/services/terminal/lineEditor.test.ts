import { describe, expect, it } from 'vitest';
import { decodeKeys } from './keys';
import { applyAnswerKey, applyKeys, emptyEditor, type Completer, type EditorState } from './lineEditor';

const names = ['clear', 'help', 'symbol', 'sync'];
/** Completes the first word from `names`; later words have no candidates. */
const complete: Completer = (before) => {
  const prefix = before.trimStart();
  if (/\s/.test(prefix)) return { from: before.length, candidates: [] };
  return { from: before.length - prefix.length, candidates: names.filter((n) => n.startsWith(prefix)) };
};

/** Types raw terminal input (as xterm sends it) into an editor. */
const type = (data: string, state: EditorState = emptyEditor()) =>
  applyKeys(state, decodeKeys(data), complete);

describe('line editor', () => {
  it('inserts text at the cursor and edits with Backspace, Delete, arrows, Home and End', () => {
    let r = type('symbxl\x1b[D\x1b[D'); // two lefts: the cursor is on the 'x'
    expect(r.state).toMatchObject({ buffer: 'symbxl', cursor: 4 });
    r = type('\x1b[3~o', r.state); // Delete removes the 'x', then 'o' is inserted
    expect(r.state).toMatchObject({ buffer: 'symbol', cursor: 5 });
    r = type('\x1b[H', r.state);
    expect(r.state.cursor).toBe(0);
    expect(type('\x7f', r.state).effects).toEqual([{ type: 'bell' }]);
    r = type('\x1b[F\x7f\x7f', r.state);
    expect(r.state).toMatchObject({ buffer: 'symb', cursor: 4 });
  });

  it('submits on Enter and recalls history with Up and Down, keeping the draft', () => {
    let r = type('help\rsymbol eth\r');
    expect(r.effects).toEqual([
      { type: 'submit', line: 'help' },
      { type: 'submit', line: 'symbol eth' },
    ]);
    expect(r.state.history).toEqual(['help', 'symbol eth']);
    r = type('dra', r.state);
    r = type('\x1b[A', r.state);
    expect(r.state).toMatchObject({ buffer: 'symbol eth', cursor: 10 });
    r = type('\x1b[A', r.state);
    expect(r.state.buffer).toBe('help');
    expect(type('\x1b[A', r.state).effects).toEqual([{ type: 'bell' }]);
    r = type('\x1b[B\x1b[B', r.state);
    expect(r.state).toMatchObject({ buffer: 'dra', historyIndex: null });
  });

  it('keeps no blank lines or immediate repeats in history', () => {
    const r = type('help\rhelp\r  \rclear\r');
    expect(r.state.history).toEqual(['help', 'clear']);
  });

  it('completes a single candidate, extends to the common prefix and lists several', () => {
    expect(type('he\t').state).toMatchObject({ buffer: 'help ', cursor: 5 });
    const several = type('s\t');
    expect(several.state.buffer).toBe('sy');
    expect(several.effects).toEqual([]);
    // A second Tab lists the candidates; a Tab that cannot extend the word rings first.
    expect(type('\t', several.state).effects).toEqual([{ type: 'candidates', items: ['symbol', 'sync'] }]);
    expect(type('sy\t').effects).toEqual([{ type: 'bell' }]);
    expect(type('sy\t\t').effects).toEqual([
      { type: 'bell' },
      { type: 'candidates', items: ['symbol', 'sync'] },
    ]);
    // The list is printed once per run of Tabs: more Tabs ring, and a new run may list again.
    expect(type('sy\t\t\t\t').effects).toEqual([
      { type: 'bell' },
      { type: 'candidates', items: ['symbol', 'sync'] },
      { type: 'bell' },
      { type: 'bell' },
    ]);
    expect(type('sy\t\tm\x7f\t\t').effects.filter((e) => e.type === 'candidates')).toHaveLength(2);
    expect(type('sy\tx\t').effects).toEqual([{ type: 'bell' }, { type: 'bell' }]);
    expect(type('zz\t').effects).toEqual([{ type: 'bell' }]);
    expect(type('symbol e\t').effects).toEqual([{ type: 'bell' }]);
  });

  it('clears the line on Ctrl+C and reports what was dropped', () => {
    const typed = type('help\rsymbol e');
    const r = type('\x03', typed.state);
    expect(r.effects).toEqual([{ type: 'interrupt', line: 'symbol e' }]);
    expect(r.state).toMatchObject({ buffer: '', cursor: 0, history: ['help'] });
  });

  it('decodes pastes, CRLF and unknown escapes', () => {
    expect(decodeKeys('ab\r\ncd\x1b[1;5Ce')).toEqual([
      { type: 'text', text: 'ab' },
      { type: 'enter' },
      { type: 'text', text: 'cd' },
      { type: 'text', text: 'e' },
    ]);
  });

  it('answers a question without history or completion, and never remembers the answer', () => {
    const answer = (data: string, secret: boolean, state: EditorState = emptyEditor(['help'])) =>
      decodeKeys(data).reduce<{ state: EditorState; effects: unknown[] }>(
        (acc, key) => {
          const next = applyAnswerKey(acc.state, key, secret);
          return { state: next.state, effects: [...acc.effects, ...next.effects] };
        },
        { state, effects: [] },
      );
    const secret = answer('pw\x1b[A\t\x1b[D\x7fd\r', true);
    expect(secret.effects).toEqual([
      { type: 'bell' },
      { type: 'bell' },
      { type: 'bell' },
      { type: 'submit', line: 'pd' },
    ]);
    expect(secret.state.history).toEqual(['help']);
    const plain = answer('ab\x1b[Dx\r', false);
    expect(plain.effects).toEqual([{ type: 'submit', line: 'axb' }]);
    expect(answer('abc\x03', true).effects).toEqual([{ type: 'interrupt', line: 'abc' }]);
  });
});
