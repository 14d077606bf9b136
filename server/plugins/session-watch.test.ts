import { afterEach, describe, expect, it, vi } from 'vitest';
import { SESSION_CLOSE_CODE, SessionWatch } from './session-watch';

afterEach(() => {
  vi.useRealTimers();
});

describe('SessionWatch', () => {
  it('closes a socket when its credential expires, and not before', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const watch = new SessionWatch({ sessionEnded: async () => false, isDisabled: async () => false });
    const closes: [number, string][] = [];
    watch.watch({ userId: 'u', role: 'user', familyId: 'f', expiresAt: 1_000_000 + 60_000 }, (c, r) =>
      closes.push([c, r]),
    );
    await vi.advanceTimersByTimeAsync(59_000);
    expect(closes).toEqual([]);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(closes).toEqual([[SESSION_CLOSE_CODE, 'credential expired']]);
    expect(watch.size).toBe(0);
  });

  it('checks one user on demand and everyone periodically; a failing check keeps the socket', async () => {
    vi.useFakeTimers({ now: 0 });
    const ended = new Set<string>();
    let failing = false;
    const watch = new SessionWatch({
      sessionEnded: async (f) => {
        if (failing) throw new Error('database down');
        return ended.has(f);
      },
      isDisabled: async (u) => u === 'disabled',
      recheckMs: 10_000,
    });
    const closed: string[] = [];
    const dispose = watch.watch({ userId: 'a', role: 'user', familyId: 'fa' }, (_c, r) =>
      closed.push(`a ${r}`),
    );
    watch.watch({ userId: 'b', role: 'user', familyId: 'fb' }, (_c, r) => closed.push(`b ${r}`));
    watch.watch({ userId: 'disabled', role: 'user' }, (_c, r) => closed.push(`d ${r}`));
    ended.add('fb');
    await watch.check('a');
    expect(closed).toEqual([]);
    failing = true;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(closed).toEqual(['d account disabled']);
    failing = false;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(closed).toEqual(['d account disabled', 'b signed out']);
    dispose();
    expect(watch.size).toBe(0);
  });
});
