import { describe, expect, it } from 'vitest';
import { endpointAllowed } from '../notifications.service';
import { endpointOrigin, retryDelay } from './push.channel';

describe('Web Push details', () => {
  it("waits what the push service's Retry-After says (at most a minute), else 1 s, 4 s, 15 s", () => {
    expect(retryDelay('0', 1)).toBe(0);
    expect(retryDelay('7', 2)).toBe(7_000);
    expect(retryDelay('3600', 1)).toBe(60_000);
    expect([1, 2, 3, 4].map((n) => retryDelay(null, n))).toEqual([1_000, 4_000, 15_000, 15_000]);
    expect(retryDelay('Wed, 21 Oct 2015 07:28:00 GMT', 1)).toBe(1_000);
  });

  it('takes https endpoints, and plain http to loopback only when allowed', () => {
    expect(endpointAllowed('https://fcm.googleapis.com/fcm/send/abc', false)).toBe(true);
    expect(endpointAllowed('http://127.0.0.1:9000/push/1', true)).toBe(true);
    expect(endpointAllowed('http://localhost:9000/push/1', true)).toBe(true);
    expect(endpointAllowed('http://[::1]:9000/push/1', true)).toBe(true);
    expect(endpointAllowed('http://127.0.0.1:9000/push/1', false)).toBe(false);
    expect(endpointAllowed('http://push.example/push/1', true)).toBe(false);
    expect(endpointAllowed('http://10.0.0.1/push/1', true)).toBe(false);
    expect(endpointAllowed('not a url', true)).toBe(false);
  });

  it("logs only an endpoint's origin, never its path (the subscription's secret)", () => {
    expect(endpointOrigin('https://fcm.googleapis.com/fcm/send/secret-token')).toBe(
      'https://fcm.googleapis.com',
    );
    expect(endpointOrigin('nonsense')).toBe('(not a URL)');
  });
});
