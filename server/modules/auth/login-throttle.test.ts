import { describe, expect, it } from 'vitest';
import { FAILURE_MEMORY_MS, FREE_FAILURES, LoginThrottle, MAX_WAIT_MS } from './login-throttle';

describe('LoginThrottle', () => {
  it('lets the first failures through, then doubles the wait with each failure, up to the cap', () => {
    let now = 0;
    const t = new LoginThrottle(() => now);
    for (let i = 0; i < FREE_FAILURES; i++) t.failed('a');
    expect(t.waitMs('a')).toBe(0);
    t.failed('a');
    expect(t.waitMs('a')).toBe(2000);
    now += 2000;
    expect(t.waitMs('a')).toBe(0);
    t.failed('a');
    expect(t.waitMs('a')).toBe(4000);
    for (let i = 0; i < 30; i++) t.failed('a');
    expect(t.waitMs('a')).toBe(MAX_WAIT_MS);
    expect(t.waitMs('b')).toBe(0);
  });

  it('forgets a run after a success, or a quiet spell', () => {
    let now = 0;
    const t = new LoginThrottle(() => now);
    for (let i = 0; i <= FREE_FAILURES; i++) t.failed('a');
    t.succeeded('a');
    expect(t.waitMs('a')).toBe(0);
    for (let i = 0; i < FREE_FAILURES; i++) t.failed('b');
    now += FAILURE_MEMORY_MS + 1;
    t.failed('b');
    expect(t.waitMs('b')).toBe(0);
  });
});
