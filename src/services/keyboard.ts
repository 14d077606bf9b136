/** The parts of a key press the focus shortcut looks at. */
export interface KeyPress {
  key: string;
  code?: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  /** The press happened in a text field, a select or an editable element (xterm's input included). */
  inEditable: boolean;
}

/** `/`, or Ctrl+` (backquote), pressed outside an input focuses the command line. */
export function isTerminalFocusShortcut(press: KeyPress): boolean {
  if (press.inEditable || press.altKey || press.metaKey) return false;
  if (press.ctrlKey) return press.key === '`' || press.code === 'Backquote';
  return press.key === '/';
}
