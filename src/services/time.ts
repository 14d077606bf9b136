/**
 * The console's one way of writing a moment: UTC, 24 h, as the chart shows it. Every pane and every
 * terminal line goes through these, so a trader never has to guess whose clock a time is on.
 *
 * - `utcStamp`: `2026-12-03 14:05:09 UTC`, the full stamp, wherever the day may not be today.
 * - `utcClock`: `14:05:09`, where the time of day is enough and UTC is said nearby (a column, a quote).
 * - `utcTime`: `14:05:09 UTC`, the same inside a sentence ("until 14:05:09 UTC").
 * - `utcDay`: `3 Dec 2026`, a day with no time (a plan's end, a link's date).
 *
 * A moment that is not a date prints as `—`: a bad value from the wire never throws in a pane.
 */
export type Moment = string | number | Date;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

/** What a moment prints as when it is not a date. */
export const NO_TIME = '—';

/** The ISO text (always UTC) of a moment, or null when it is not a date. */
function isoOf(at: Moment): string | null {
  const date = at instanceof Date ? at : new Date(at);
  return Number.isFinite(date.getTime()) ? date.toISOString() : null;
}

/** `2026-12-03 14:05:09 UTC`. */
export function utcStamp(at: Moment): string {
  const iso = isoOf(at);
  return iso === null ? NO_TIME : `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

/** `14:05:09`, or `14:05:09.123` with `ms` (a latency receipt's stages). */
export function utcClock(at: Moment, options: { ms?: boolean } = {}): string {
  const iso = isoOf(at);
  if (iso === null) return NO_TIME;
  return iso.slice(11, options.ms === true ? 23 : 19);
}

/** `14:05:09 UTC`. */
export function utcTime(at: Moment): string {
  const clock = utcClock(at);
  return clock === NO_TIME ? NO_TIME : `${clock} UTC`;
}

/** `3 Dec 2026` (the UTC day). */
export function utcDay(at: Moment): string {
  const iso = isoOf(at);
  if (iso === null) return NO_TIME;
  const month = MONTHS[Number(iso.slice(5, 7)) - 1] ?? '';
  return `${Number(iso.slice(8, 10))} ${month} ${iso.slice(0, 4)}`;
}
