import { describe, expect, it } from 'vitest';
import { backoffMs, jitterMs, retryAfterMs } from './backoff';

const fixed = (r: number) => () => r;

describe('backoffMs', () => {
  const base = { baseMs: 1_000, maxMs: 30_000 };

  it('doubles from the base up to the cap, without jitter', () => {
    const delays = [0, 1, 2, 3, 4, 5, 6, 40].map((n) => backoffMs(n, { ...base, jitter: 'none' }));
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
  });

  it('grows by another factor when told', () => {
    expect(
      [0, 1, 2].map((n) => backoffMs(n, { baseMs: 100, maxMs: 1e6, factor: 3, jitter: 'none' })),
    ).toEqual([100, 300, 900]);
  });

  it('full jitter: anywhere from 0 to the delay', () => {
    expect(backoffMs(2, { ...base, jitter: 'full', random: fixed(0) })).toBe(0);
    expect(backoffMs(2, { ...base, jitter: 'full', random: fixed(0.5) })).toBe(2_000);
    expect(backoffMs(2, { ...base, jitter: 'full', random: fixed(0.999) })).toBe(3_996);
    expect(backoffMs(9, { ...base, jitter: 'full', random: fixed(0.25) })).toBe(7_500);
  });

  it('equal jitter: never less than half the delay', () => {
    expect(backoffMs(2, { ...base, jitter: 'equal', random: fixed(0) })).toBe(2_000);
    expect(backoffMs(2, { ...base, jitter: 'equal', random: fixed(0.5) })).toBe(3_000);
    expect(backoffMs(2, { ...base, jitter: 'equal', random: fixed(0.999) })).toBe(3_998);
    expect(backoffMs(9, { ...base, jitter: 'equal', random: fixed(0) })).toBe(15_000);
  });

  it('jitters fully unless told otherwise, with Math.random unless given one', () => {
    expect(backoffMs(1, { ...base, random: fixed(0.5) })).toBe(1_000);
    for (let i = 0; i < 200; i += 1) {
      const wait = backoffMs(3, base);
      expect(wait).toBeGreaterThanOrEqual(0);
      expect(wait).toBeLessThanOrEqual(8_000);
    }
  });

  it('treats a negative, fractional or absurd attempt sanely', () => {
    const none = { ...base, jitter: 'none' } as const;
    expect(backoffMs(-3, none)).toBe(1_000);
    expect(backoffMs(1.7, none)).toBe(2_000);
    expect(backoffMs(Number.NaN, none)).toBe(1_000);
    expect(backoffMs(5_000, none)).toBe(30_000);
    expect(backoffMs(Number.POSITIVE_INFINITY, none)).toBe(30_000);
    expect(backoffMs(5_000, { baseMs: 0, maxMs: 10, jitter: 'none' })).toBe(0);
  });

  it('keeps a random outside [0, 1) inside the delay', () => {
    expect(jitterMs(1_000, 'full', fixed(7))).toBe(1_000);
    expect(jitterMs(1_000, 'equal', fixed(-1))).toBe(500);
    expect(jitterMs(1_000, 'none', fixed(0.3))).toBe(1_000);
  });
});

describe('retryAfterMs', () => {
  const now = Date.UTC(2015, 9, 21, 7, 28, 0);

  it('reads delay-seconds', () => {
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs('1.5', now)).toBe(1_500);
  });

  it('reads the three HTTP-date forms, in GMT', () => {
    expect(retryAfterMs('Wed, 21 Oct 2015 07:28:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('Wednesday, 21-Oct-15 07:29:00 GMT', now)).toBe(60_000);
    expect(retryAfterMs('Wed Oct 21 07:28:05 2015', now)).toBe(5_000);
    expect(retryAfterMs('Thu Oct  1 07:28:00 2015', now)).toBe(0);
    expect(retryAfterMs('wed, 21 oct 2015 08:28:00 gmt', now)).toBe(3_600_000);
  });

  it('clamps a past date and a negative number to 0', () => {
    expect(retryAfterMs('Tue, 20 Oct 2015 07:28:00 GMT', now)).toBe(0);
    expect(retryAfterMs('-5', now)).toBe(0);
  });

  it('answers null for a missing or unreadable header', () => {
    for (const header of [
      null,
      undefined,
      '',
      '   ',
      'soon',
      '1e3',
      '0x10',
      'Infinity',
      'NaN',
      '12 seconds',
      '2015-10-21T07:28:30Z',
      'hello 2020',
      'Wed, 21 Oct 2015 07:28:30',
      'Wed, 21 Oct 2015 25:28:30 GMT',
      'Wed, 31 Feb 2015 07:28:30 GMT',
      'Wed, 21 Foo 2015 07:28:30 GMT',
    ]) {
      expect(retryAfterMs(header, now), String(header)).toBeNull();
    }
  });

  it('measures from the time now when no time is given', () => {
    const soon = new Date(Date.now() + 3_600_000).toUTCString();
    const wait = retryAfterMs(soon);
    expect(wait).toBeGreaterThan(3_590_000);
    expect(wait).toBeLessThanOrEqual(3_600_000);
  });
});
