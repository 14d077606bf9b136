/**
 * docs/product.md §9 time-ago labels: under 10 s "just now", then seconds, minutes, hours up to 24 h, then a date.
 * The feed refreshes them every second from one ticking `now`.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

const pad = (n: number): string => String(n).padStart(2, '0');

/** `Mar 5, 14:02 UTC`, the console's one clock; the year is added when it is not the current one. */
export function formatDate(then: number, now: number): string {
  const d = new Date(then);
  const year = d.getUTCFullYear() === new Date(now).getUTCFullYear() ? '' : ` ${d.getUTCFullYear()}`;
  return `${MONTHS[d.getUTCMonth()] ?? ''} ${d.getUTCDate()}${year}, ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`;
}

export function timeAgo(then: number, now: number): string {
  const seconds = Math.max(0, Math.floor((now - then) / 1000));
  if (seconds < 10) return 'just now';
  if (seconds < 60) return `${seconds}s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 24 * 3600) return `${Math.floor(seconds / 3600)}h ago`;
  return formatDate(then, now);
}
