/**
 * How long to wait before trying again: one rule for every reconnect and retry, on the server and in
 * the browser. Pure: no timers, no clock beyond a `now` the caller may pass.
 */

/**
 * How a delay is spread at random, so that clients that failed together do not come back together
 * (the three kinds of AWS's "Exponential Backoff And Jitter"):
 * - `full`: anywhere from 0 to the delay. Spreads retries the most; for many clients of one server
 *   (browsers after the server restarts).
 * - `equal`: half the delay, plus up to the other half at random, so never less than half the delay.
 *   For one client of an upstream that should not be called again too soon.
 * - `none`: the delay itself.
 */
export type Jitter = 'full' | 'equal' | 'none';

export interface BackoffOptions {
  /** The delay of attempt 0, before jitter. */
  baseMs: number;
  /** The longest delay, before jitter. */
  maxMs: number;
  /** Growth per attempt (2: doubling). */
  factor?: number;
  jitter?: Jitter;
  /** A number in [0, 1), as `Math.random` answers; tests pass a fixed one. */
  random?: () => number;
}

/** `ms` spread by `jitter`, rounded to whole milliseconds. */
export function jitterMs(ms: number, jitter: Jitter, random: () => number = Math.random): number {
  if (jitter === 'none') return Math.round(ms);
  const r = Math.min(1, Math.max(0, random()));
  return Math.round(jitter === 'full' ? ms * r : ms / 2 + (ms / 2) * r);
}

/**
 * The wait before retry `attempt` (0 for the first retry): `baseMs · factor^attempt`, at most `maxMs`,
 * then jittered (full jitter unless told otherwise).
 */
export function backoffMs(attempt: number, options: BackoffOptions): number {
  const { baseMs, maxMs, factor = 2, jitter = 'full', random = Math.random } = options;
  const n = attempt > 0 ? Math.floor(attempt) : 0; // NaN and negatives: the first retry
  const grown = baseMs * factor ** n; // NaN only for 0 · Infinity: a zero base stays zero
  return jitterMs(Math.max(0, Math.min(maxMs, Number.isNaN(grown) ? 0 : grown)), jitter, random);
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const TIME = '(?<h>\\d{2}):(?<min>\\d{2}):(?<s>\\d{2})';
/** The three forms of an HTTP-date (RFC 9110 §5.6.7), matched on lower-cased text. */
const HTTP_DATES = [
  // IMF-fixdate, the one every server should send: `Sun, 06 Nov 1994 08:49:37 GMT`
  new RegExp(`^[a-z]{3}, (?<day>\\d{2}) (?<month>[a-z]{3}) (?<year>\\d{4}) ${TIME} gmt$`),
  // RFC 850, obsolete: `Sunday, 06-Nov-94 08:49:37 GMT`
  new RegExp(`^[a-z]{6,9}, (?<day>\\d{2})-(?<month>[a-z]{3})-(?<year>\\d{2}) ${TIME} gmt$`),
  // C's asctime, obsolete, in UTC: `Sun Nov  6 08:49:37 1994`
  new RegExp(`^[a-z]{3} (?<month>[a-z]{3}) +(?<day>\\d{1,2}) ${TIME} (?<year>\\d{4})$`),
];

/** An HTTP-date in epoch milliseconds; null for anything else. */
function httpDate(text: string, now: number): number | null {
  const lower = text.toLowerCase();
  const g = HTTP_DATES.map((re) => re.exec(lower)?.groups).find((groups) => groups !== undefined);
  if (g === undefined) return null;
  const [day, h, min, s] = [g.day, g.h, g.min, g.s].map(Number) as [number, number, number, number];
  const month = MONTHS.indexOf(g.month ?? '');
  let year = Number(g.year);
  if (g.year?.length === 2) {
    // RFC 9110: a two-digit year that would be more than 50 years ahead is in the past century.
    const thisYear = new Date(now).getUTCFullYear();
    year += Math.floor(thisYear / 100) * 100;
    if (year > thisYear + 50) year -= 100;
  }
  if (month < 0 || h > 23 || min > 59 || s > 60) return null;
  const at = Date.UTC(year, month, day, h, min, Math.min(s, 59));
  // Day 0, 31 Feb and the like roll into another month: not a date.
  return new Date(at).getUTCDate() === day ? at : null;
}

/**
 * The wait a `Retry-After` header asks for, in milliseconds: delay-seconds (`120`) or an HTTP-date
 * (`Wed, 21 Oct 2015 07:28:00 GMT`). Null when the header is missing or is neither; a date in the past
 * (or a negative number) is 0.
 */
export function retryAfterMs(header: string | null | undefined, now: number = Date.now()): number | null {
  const text = header?.trim() ?? '';
  if (text === '') return null;
  if (/^[+-]?\d+(\.\d+)?$/.test(text)) return Math.max(0, Math.round(Number(text) * 1000));
  const at = httpDate(text, now);
  return at === null ? null : Math.max(0, at - now);
}
