/** How an output line is coloured: plain, failure, success or de-emphasised. */
export type Tone = 'info' | 'error' | 'success' | 'muted';

/** Why a line is an error, for callers and tests that need more than the text. */
export type ErrorCode = 'unknown-command' | 'parse' | 'invalid-args' | 'failed';

/** The colour of one part of a line: table headers, sides (long/short) and gains or losses. */
export type SegmentStyle = 'header' | 'long' | 'short' | 'gain' | 'loss' | 'muted';

/** A part of an output line with its own colour, or a link (`href`). */
export interface Segment {
  text: string;
  style?: SegmentStyle;
  href?: string;
}

/** One line a command prints. `text` is always the whole line; `segments`, when set, spell it in parts. */
export interface OutputLine {
  text: string;
  tone: Tone;
  code?: ErrorCode;
  segments?: readonly Segment[];
}

export const info = (text: string): OutputLine => ({ text, tone: 'info' });
export const success = (text: string): OutputLine => ({ text, tone: 'success' });
export const muted = (text: string): OutputLine => ({ text, tone: 'muted' });
export const failure = (text: string, code: ErrorCode = 'failed'): OutputLine => ({
  text,
  tone: 'error',
  code,
});

/** A line made of coloured parts; its text is the parts joined. */
export const styled = (segments: readonly Segment[], tone: Tone = 'info'): OutputLine => ({
  text: segments.map((s) => s.text).join(''),
  tone,
  segments,
});

/** A line holding a link: `label` (the address itself by default) opens `href`. */
export const link = (href: string, label = href, before = '', after = ''): OutputLine =>
  styled([{ text: before }, { text: label, href }, { text: after }].filter((s) => s.text !== ''));
