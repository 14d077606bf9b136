import { describe, expect, it } from 'vitest';
import {
  KEY_MAP,
  createShortcutReader,
  createTerminalEscape,
  isTerminalFocusShortcut,
  type KeyPress,
} from './keyboard';

const press = (over: Partial<KeyPress>): KeyPress => ({
  key: 'a',
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  inEditable: false,
  ...over,
});

describe('terminal focus shortcut', () => {
  it('is / or Ctrl+` outside an input', () => {
    expect(isTerminalFocusShortcut(press({ key: '/' }))).toBe(true);
    expect(isTerminalFocusShortcut(press({ key: '`', ctrlKey: true }))).toBe(true);
    expect(isTerminalFocusShortcut(press({ key: 'Dead', code: 'Backquote', ctrlKey: true }))).toBe(true);
  });

  it('is nothing inside an input, with other modifiers, or for other keys', () => {
    expect(isTerminalFocusShortcut(press({ key: '/', inEditable: true }))).toBe(false);
    expect(isTerminalFocusShortcut(press({ key: '`' }))).toBe(false);
    expect(isTerminalFocusShortcut(press({ key: '/', ctrlKey: true }))).toBe(false);
    expect(isTerminalFocusShortcut(press({ key: '/', metaKey: true }))).toBe(false);
    expect(isTerminalFocusShortcut(press({ key: 'k' }))).toBe(false);
  });
});

describe('global shortcut reader', () => {
  const key = (k: string, over: Partial<KeyPress> = {}): KeyPress => press({ key: k, ...over });

  it('opens the palette on Ctrl+K and Cmd+K, even while typing', () => {
    const read = createShortcutReader();
    expect(read(key('k', { ctrlKey: true, inEditable: true }))).toEqual({ type: 'palette' });
    expect(read(key('K', { metaKey: true }))).toEqual({ type: 'palette' });
    expect(read(key('k'))).toBeNull();
  });

  it('focuses panes on Ctrl+1..4 and on g then f/c/p/t within 1.5 s', () => {
    const read = createShortcutReader();
    expect(read(key('1', { ctrlKey: true, code: 'Digit1', inEditable: true }))).toEqual({
      type: 'focus',
      pane: 'feed',
    });
    expect(read(key('4', { ctrlKey: true, code: 'Digit4' }))).toEqual({ type: 'focus', pane: 'terminal' });
    expect(read(key('g', { time: 0 }))).toBeNull();
    expect(read(key('c', { time: 500 }))).toEqual({ type: 'focus', pane: 'chart' });
    read(key('g', { time: 1000 }));
    expect(read(key('p', { time: 1200 }))).toEqual({ type: 'focus', pane: 'positions' });
    read(key('g', { time: 2000 }));
    expect(read(key('t', { time: 4000 }))).toBeNull(); // too late
    read(key('g', { time: 5000 }));
    expect(read(key('x', { time: 5100 }))).toBeNull();
    expect(read(key('f', { time: 5200 }))).toBeNull(); // the sequence was broken by x
    read(key('g', { time: 6000, inEditable: true }));
    expect(read(key('f', { time: 6100, inEditable: true }))).toBeNull(); // typing in a field
  });

  it('shows the key map on ?, and every key it lists is documented', () => {
    const read = createShortcutReader();
    expect(read(key('?'))).toEqual({ type: 'keymap' });
    expect(read(key('?', { inEditable: true }))).toBeNull();
    // At the empty, idle command line `?` is the key map too; inside a command it stays a character.
    expect(read(key('?', { inEditable: true, atEmptyPrompt: true }))).toEqual({ type: 'keymap' });
    expect(read(key('?', { inEditable: true, atEmptyPrompt: false }))).toBeNull();
    expect(KEY_MAP.map((k) => k.keys)).toEqual(expect.arrayContaining(['Ctrl+K / Cmd+K', '?', 'Ctrl+R']));
  });

  it('lists the feed keys: j/k, Enter, l/s, 1-9 and Esc', () => {
    const feed = KEY_MAP.filter((k) => k.does.startsWith('in the feed')).map((k) => k.keys);
    expect(feed).toEqual(['j / k (↓ / ↑)', 'Enter', 'l / s', '1 … 9', 'Esc']);
  });
});

describe('the way out of the terminal', () => {
  const down = (key: string, mods: Partial<{ ctrlKey: boolean; altKey: boolean }> = {}) => ({
    type: 'keydown',
    key,
    ctrlKey: false,
    metaKey: false,
    altKey: false,
    ...mods,
  });

  it('gives the Tab after Esc to the browser, and every other Tab to the terminal', () => {
    const xtermTakes = createTerminalEscape();
    expect(xtermTakes(down('Tab'))).toBe(true);
    expect(xtermTakes(down('Escape'))).toBe(true);
    expect(xtermTakes(down('Tab'))).toBe(false);
    // Only the one Tab right after Esc: the next is completion again.
    expect(xtermTakes(down('Tab'))).toBe(true);
    // Shift (for Shift+Tab) between Esc and Tab keeps the way out open.
    xtermTakes(down('Escape'));
    expect(xtermTakes(down('Shift'))).toBe(true);
    expect(xtermTakes(down('Tab'))).toBe(false);
    // Any other key in between closes it.
    xtermTakes(down('Escape'));
    xtermTakes(down('a'));
    expect(xtermTakes(down('Tab'))).toBe(true);
    xtermTakes(down('Escape', { altKey: true }));
    expect(xtermTakes(down('Tab'))).toBe(true);
    // keyup and keypress never change anything.
    xtermTakes(down('Escape'));
    expect(xtermTakes({ ...down('Escape'), type: 'keyup' })).toBe(true);
    expect(xtermTakes(down('Tab'))).toBe(false);
  });

  it('is in the key map', () => {
    expect(KEY_MAP.some((row) => row.keys === 'Esc then Tab')).toBe(true);
  });
});
