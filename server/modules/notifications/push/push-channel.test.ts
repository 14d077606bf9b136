import { describe, expect, it } from 'vitest';
import { endpointOrigin, retryDelay } from './push-channel';

describe('Web Push details', () => {
  it("waits what the push service's Retry-After says (at most a minute), else 1 s, 4 s, 15 s", () => {
    expect(retryDelay('0', 1)).toBe(0);
    expect(retryDelay('7', 2)).toBe(7_000);
    expect(retryDelay('3600', 1)).toBe(60_000);
    expect([1, 2, 3, 4].map((n) => retryDelay(null, n))).toEqual([1_000, 4_000, 15_000, 15_000]);
    expect(retryDelay('Wed, 21 Oct 2015 07:28:00 GMT', 1)).toBe(1_000);
  });

  it("logs only an endpoint's origin, never its path (the subscription's secret)", () => {
    expect(endpointOrigin('https://fcm.googleapis.com/fcm/send/secret-token')).toBe(
      'https://fcm.googleapis.com',
    );
    expect(endpointOrigin('nonsense')).toBe('(not a URL)');
  });
});
