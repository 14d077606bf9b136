import type { ITheme } from '@xterm/xterm';

/** Trading-terminal colours: near-black, green for up/success, red for down/errors. */
export const TERMINAL_THEME: ITheme = {
  background: '#0b0e11',
  foreground: '#d1d4dc',
  cursor: '#0ecb81',
  cursorAccent: '#0b0e11',
  selectionBackground: '#2b3139',
  black: '#0b0e11',
  red: '#f6465d',
  green: '#0ecb81',
  yellow: '#f0b90b',
  blue: '#3b82f6',
  magenta: '#c084fc',
  cyan: '#22d3ee',
  white: '#d1d4dc',
  brightBlack: '#848e9c', // dim text at 5.7:1 on the background (WCAG AA)
  brightRed: '#ff707e',
  brightGreen: '#2ee6a0',
  brightYellow: '#fcd535',
  brightBlue: '#60a5fa',
  brightMagenta: '#d8b4fe',
  brightCyan: '#67e8f9',
  brightWhite: '#f5f5f5',
};

export const MONO_FONT =
  'ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", "Liberation Mono", monospace';
