/** How an output line is coloured: plain, failure, success or de-emphasised. */
export type Tone = 'info' | 'error' | 'success' | 'muted';

/** Why a line is an error, for callers and tests that need more than the text. */
export type ErrorCode = 'unknown-command' | 'parse' | 'invalid-args' | 'failed';

/** One line a command prints. */
export interface OutputLine {
  text: string;
  tone: Tone;
  code?: ErrorCode;
}

export const info = (text: string): OutputLine => ({ text, tone: 'info' });
export const success = (text: string): OutputLine => ({ text, tone: 'success' });
export const muted = (text: string): OutputLine => ({ text, tone: 'muted' });
export const failure = (text: string, code: ErrorCode = 'failed'): OutputLine => ({
  text,
  tone: 'error',
  code,
});
