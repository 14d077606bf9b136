import { describe, expect, it } from 'vitest';
import { NO_TIME, utcClock, utcDay, utcStamp, utcTime } from './time';

const AT = '2026-12-03T14:05:09.123Z';

describe('one way of writing a moment: UTC, 24 h', () => {
  it('prints the full stamp, the clock, the clock in a sentence and the day', () => {
    expect(utcStamp(AT)).toBe('2026-12-03 14:05:09 UTC');
    expect(utcClock(AT)).toBe('14:05:09');
    expect(utcClock(AT, { ms: true })).toBe('14:05:09.123');
    expect(utcTime(AT)).toBe('14:05:09 UTC');
    expect(utcDay(AT)).toBe('3 Dec 2026');
  });

  it('takes a Date, epoch milliseconds or ISO text with an offset, and always answers in UTC', () => {
    expect(utcStamp(new Date(AT))).toBe('2026-12-03 14:05:09 UTC');
    expect(utcStamp(Date.parse(AT))).toBe('2026-12-03 14:05:09 UTC');
    // 01:30 in Berlin on the 4th is 00:30 UTC on the 4th; 23:30 in New York on the 3rd is the 4th in UTC.
    expect(utcStamp('2026-12-04T01:30:00+01:00')).toBe('2026-12-04 00:30:00 UTC');
    expect(utcDay('2026-12-03T23:30:00-05:00')).toBe('4 Dec 2026');
    expect(utcClock('2026-12-03T00:00:00Z')).toBe('00:00:00');
  });

  it('a moment that is not a date prints as a dash, never throws', () => {
    for (const bad of ['not a date', Number.NaN, new Date('nope')]) {
      expect(utcStamp(bad)).toBe(NO_TIME);
      expect(utcClock(bad)).toBe(NO_TIME);
      expect(utcTime(bad)).toBe(NO_TIME);
      expect(utcDay(bad)).toBe(NO_TIME);
    }
  });
});
