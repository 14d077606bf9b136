import { describe, expect, it } from 'vitest';
import { isTerminalFocusShortcut, type KeyPress } from './keyboard';

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
