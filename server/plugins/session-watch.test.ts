import { afterEach, describe, expect, it, vi } from 'vitest';
import { SESSION_CLOSE_CODE, SessionWatch } from './session-watch';

afterEach(() => {
  vi.useRealTimers();
});

describe('SessionWatch', () => {
  it('closes a socket when its credential expires, and not before', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const watch = new SessionWatch({
      endedAmong: async () => new Set(),
      disabledAmong: async () => new Set(),
    });
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
      endedAmong: async (families) => {
        if (failing) throw new Error('database down');
        return new Set(families.filter((f) => ended.has(f)));
      },
      disabledAmong: async (users) => new Set(users.filter((u) => u === 'disabled')),
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

  it('checks thirty sockets with two questions, whatever their number, and closes only those it names', async () => {
    vi.useFakeTimers({ now: 0 });
    const asked: string[][] = [];
    const watch = new SessionWatch({
      endedAmong: async (families) => {
        asked.push(['ended', ...families]);
        return new Set(families.filter((f) => f === 'f7'));
      },
      disabledAmong: async (users) => {
        asked.push(['disabled', ...users]);
        return new Set(users.filter((u) => u === 'u3'));
      },
      recheckMs: 10_000,
    });
    const closed: string[] = [];
    // Thirty sockets of fifteen users, two sign-ins each; u3 is disabled, the sign-in f7 ended.
    for (let i = 0; i < 30; i++) {
      const userId = `u${i % 15}`;
      watch.watch({ userId, role: 'user', familyId: `f${i}` }, (_c, r) => closed.push(`${i} ${r}`));
    }
    await vi.advanceTimersByTimeAsync(10_000);
    expect(asked.map((q) => q[0]).sort()).toEqual(['disabled', 'ended']);
    expect(asked.find((q) => q[0] === 'disabled')).toHaveLength(1 + 15);
    expect(asked.find((q) => q[0] === 'ended')).toHaveLength(1 + 30);
    expect(closed.sort()).toEqual(['18 account disabled', '3 account disabled', '7 signed out']);
    expect(watch.size).toBe(27);
    // One user's check asks about that user's sockets only.
    asked.length = 0;
    await watch.check('u4');
    expect(
      asked
        .find((q) => q[0] === 'ended')
        ?.slice(1)
        .sort(),
    ).toEqual(['f19', 'f4']);
    watch.closeAll();
  });
});
