import { describe, expect, it } from 'vitest';
import { formatDate, timeAgo } from './timeAgo';

const NOW = Date.UTC(2026, 2, 5, 14, 2, 30);
const ago = (ms: number) => timeAgo(NOW - ms, NOW);

describe('time-ago labels (docs/product.md §9)', () => {
  it.each([
    [0, 'just now'],
    [9_999, 'just now'],
    [10_000, '10s ago'],
    [59_999, '59s ago'],
    [60_000, '1m ago'],
    [3_599_999, '59m ago'],
    [3_600_000, '1h ago'],
    [24 * 3_600_000 - 1, '23h ago'],
  ])('%i ms ago reads %s', (ms, label) => {
    expect(ago(ms)).toBe(label);
  });

  it('shows a date from 24 hours on, with the year only when it differs', () => {
    expect(ago(24 * 3_600_000)).toBe('Mar 4, 14:02 UTC');
    expect(timeAgo(Date.UTC(2025, 11, 31, 9, 5), NOW)).toBe('Dec 31 2025, 09:05 UTC');
    expect(formatDate(Date.UTC(2026, 0, 9, 0, 0), NOW)).toBe('Jan 9, 00:00 UTC');
  });

  it('reads a time in the future (a fast clock elsewhere) as just now', () => {
    expect(timeAgo(NOW + 5_000, NOW)).toBe('just now');
  });
});
