import type { EditorState } from './lineEditor';
import type { Question } from './question';
import type { OutputLine, Tone } from './output';

/** ANSI colours; the terminal's theme decides the exact shades (dark, green/red accents). */
const SGR = {
  reset: '\x1b[0m',
  red: '\x1b[31m',
  green: '\x1b[32m',
  cyan: '\x1b[36m',
  yellow: '\x1b[33m',
  grey: '\x1b[90m',
  bold: '\x1b[1m',
} as const;

const TONE: Readonly<Record<Tone, string>> = {
  info: '',
  error: SGR.red,
  success: SGR.green,
  muted: SGR.grey,
};

export const CLEAR_SCREEN = '\x1b[2J\x1b[3J\x1b[H';
export const CLEAR_LINE = '\r\x1b[2K';
export const NEWLINE = '\r\n';
export const BELL = '\x07';

/** Parts of the prompt: `user@PAIR › `, or `user@PAIR [PAPER] › ` when orders go to the paper exchange. */
export interface Prompt {
  user: string;
  symbol: string;
  tag?: string;
}

const tagText = (tag: string | undefined): string => (tag === undefined ? '' : ` [${tag}]`);

export const promptText = ({ user, symbol, tag }: Prompt): string => `${user}@${symbol}${tagText(tag)} › `;

export const coloredPrompt = ({ user, symbol, tag }: Prompt): string =>
  `${SGR.green}${user}${SGR.reset}${SGR.grey}@${SGR.reset}${SGR.cyan}${symbol}${SGR.reset}` +
  (tag === undefined ? '' : ` ${SGR.bold}${SGR.yellow}[${tag}]${SGR.reset}`) +
  ` ${SGR.grey}›${SGR.reset} `;

/** Terminals treat a bare \n as "down one row"; output lines may hold several lines of text. */
const crlf = (text: string): string => text.replace(/\r?\n/g, NEWLINE);

/** One output line, coloured by tone, ending with a newline. */
export function formatOutput(line: OutputLine): string {
  const colour = TONE[line.tone];
  return colour === '' ? crlf(line.text) + NEWLINE : `${colour}${crlf(line.text)}${SGR.reset}${NEWLINE}`;
}

/** Redraws the prompt row and puts the cursor where the editor has it. */
export function renderEditLine(prompt: Prompt, state: EditorState): string {
  const column = promptText(prompt).length + state.cursor + 1;
  return `${CLEAR_LINE}${coloredPrompt(prompt)}${state.buffer}\x1b[${column}G`;
}

/** Draws a question where the prompt was: its label, then the answer unless it is secret. */
export function renderQuestion(question: Question, state: EditorState): string {
  const shown = question.secret ? '' : state.buffer;
  const column = question.label.length + (question.secret ? 0 : state.cursor) + 1;
  return `${CLEAR_LINE}${question.label}${shown}\x1b[${column}G`;
}
