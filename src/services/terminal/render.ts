import type { EditorState } from './lineEditor';
import { ghost, searchLine } from './lineEditor';
import type { OutputLine, Segment, SegmentStyle, Tone } from './output';
import type { Question } from './question';

/** ANSI colours; the terminal's theme decides the exact shades (dark, green/red accents). */
const SGR = {
  reset: '\x1b[0m',
  red: '\x1b[31m',
  green: '\x1b[32m',
  cyan: '\x1b[36m',
  yellow: '\x1b[33m',
  grey: '\x1b[90m',
  bold: '\x1b[1m',
  underline: '\x1b[4m',
} as const;

const TONE: Readonly<Record<Tone, string>> = {
  info: '',
  error: SGR.red,
  success: SGR.green,
  muted: SGR.grey,
};

const STYLE: Readonly<Record<SegmentStyle, string>> = {
  header: SGR.bold,
  long: SGR.green,
  short: SGR.red,
  gain: SGR.green,
  loss: SGR.red,
  muted: SGR.grey,
};

export const CLEAR_SCREEN = '\x1b[2J\x1b[3J\x1b[H';
export const CLEAR_LINE = '\r\x1b[2K';
export const NEWLINE = '\r\n';
export const BELL = '\x07';

/** Parts of the prompt: `user@PAIR › `, or `user@PAIR paper › ` with the venue orders go to. */
export interface Prompt {
  user: string;
  symbol: string;
  /** `PAPER`, `BYBIT LIVE`, `OKX DEMO`: the account orders go to (shown in lower case). */
  tag?: string;
}

const tagText = (tag: string | undefined): string => (tag === undefined ? '' : ` ${tag.toLowerCase()}`);

/** Real funds are red: a LIVE account on whichever venue (`bybit live`). */
const realFunds = (tag: string): boolean => /(^| )live$/.test(tag.toLowerCase());

export const promptText = ({ user, symbol, tag }: Prompt): string => `${user}@${symbol}${tagText(tag)} › `;

export const coloredPrompt = ({ user, symbol, tag }: Prompt): string =>
  `${SGR.green}${user}${SGR.reset}${SGR.grey}@${SGR.reset}${SGR.cyan}${symbol}${SGR.reset}` +
  (tag === undefined
    ? ''
    : ` ${SGR.bold}${realFunds(tag) ? SGR.red : SGR.yellow}${tag.toLowerCase()}${SGR.reset}`) +
  ` ${SGR.grey}›${SGR.reset} `;

/** Terminals treat a bare \n as "down one row"; output lines may hold several lines of text. */
const crlf = (text: string): string => text.replace(/\r?\n/g, NEWLINE);

/** An OSC 8 hyperlink: terminals that know it (xterm.js does) make `text` open `href`. */
export const hyperlink = (href: string, text: string): string => `\x1b]8;;${href}\x07${text}\x1b]8;;\x07`;

const URL_PATTERN = /https?:\/\/[^\s"'<>]+[^\s"'<>.,;:!?)]/g;

/** Plain text with every http(s) address made a hyperlink. */
export const linkify = (text: string): string => text.replace(URL_PATTERN, (url) => hyperlink(url, url));

function formatSegment(segment: Segment, base: string): string {
  const text = segment.href === undefined ? linkify(segment.text) : hyperlink(segment.href, segment.text);
  const colour =
    segment.href !== undefined ? SGR.underline : segment.style === undefined ? '' : STYLE[segment.style];
  return colour === '' ? text : `${colour}${text}${SGR.reset}${base}`;
}

/** One output line, coloured by tone (and by segment), links made clickable, ending with a newline. */
export function formatOutput(line: OutputLine): string {
  const colour = TONE[line.tone];
  const body =
    line.segments === undefined
      ? linkify(crlf(line.text))
      : line.segments.map((s) => formatSegment({ ...s, text: crlf(s.text) }, colour)).join('');
  return colour === '' ? body + NEWLINE : `${colour}${body}${SGR.reset}${NEWLINE}`;
}

/** Plain output for pipes (the CLI without a terminal): the text only. */
export const plainOutput = (line: OutputLine): string => `${line.text}\n`;

/**
 * What the prompt row (or a question) draws: `text` with its colours, `length` the cells it fills, and
 * `cursor` the cell the cursor goes to, both counted from the start of the row. The session erases
 * and places it, since a long line may wrap over several rows.
 */
export interface EditBlock {
  text: string;
  length: number;
  cursor: number;
}

/** The prompt row: the line, the grey history suggestion after it, and where the cursor is. */
export function renderEditLine(prompt: Prompt, state: EditorState): EditBlock {
  if (state.search !== null) return renderSearch(state);
  const head = promptText(prompt).length;
  const suggestion = ghost(state);
  const shown = suggestion === '' ? '' : `${SGR.grey}${suggestion}${SGR.reset}`;
  return {
    text: `${coloredPrompt(prompt)}${state.buffer}${shown}`,
    length: head + state.buffer.length + suggestion.length,
    cursor: head + state.cursor,
  };
}

/** `(reverse-i-search)'btc': btc long 5k`, the cursor after the query. */
function renderSearch(state: EditorState): EditBlock {
  const query = state.search?.query ?? '';
  const label = `(reverse-i-search)'${query}': `;
  const found = searchLine(state);
  return {
    text: `${SGR.grey}${label}${SGR.reset}${found}`,
    length: label.length + found.length,
    cursor: label.length - 3,
  };
}

/** A question where the prompt was: its label, then the answer unless it is secret. */
export function renderQuestion(question: Question, state: EditorState): EditBlock {
  const shown = question.secret ? '' : state.buffer;
  return {
    text: `${question.label}${shown}`,
    length: question.label.length + shown.length,
    cursor: question.label.length + (question.secret ? 0 : state.cursor),
  };
}

/** Braille spinner frames, one per tick while a command waits on the server. */
export const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'] as const;
export const SPINNER_MS = 80;

export const renderSpinner = (frame: number): string =>
  `${CLEAR_LINE}${SGR.cyan}${SPINNER[frame % SPINNER.length] ?? ''}${SGR.reset} ${SGR.grey}working… (Ctrl+C cancels)${SGR.reset}`;
