import { describe, expect, it } from 'vitest';
import { withBrowserLock, type LockManagerLike, type StorageLike } from './browserLock';

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

/** Two "tabs" each run a slow critical section; records when each one enters and leaves. */
async function race(deps: () => Parameters<typeof withBrowserLock>[2]) {
  const log: string[] = [];
  const section = (tab: string) => async () => {
    log.push(`${tab} in`);
    await tick();
    await tick();
    log.push(`${tab} out`);
    return tab;
  };
  const results = await Promise.all([
    withBrowserLock('refresh', section('a'), deps()),
    withBrowserLock('refresh', section('b'), deps()),
  ]);
  return { log, results };
}

describe('one refresh per browser at a time', () => {
  it('queues a second tab behind the first with the Web Locks API', async () => {
    let queue = Promise.resolve();
    const locks: LockManagerLike = {
      request<T>(_name: string, work: () => Promise<T>) {
        const run = queue.then(work);
        queue = run.then(
          () => undefined,
          () => undefined,
        );
        return run;
      },
    };
    const { log, results } = await race(() => ({ locks }));
    expect(results).toEqual(['a', 'b']);
    expect(log).toEqual(['a in', 'a out', 'b in', 'b out']);
  });

  it('falls back to a lease in shared storage, released after use', async () => {
    const map = new Map<string, string>();
    const storage: StorageLike = {
      getItem: (k) => map.get(k) ?? null,
      setItem: (k, v) => void map.set(k, v),
      removeItem: (k) => void map.delete(k),
    };
    const { log } = await race(() => ({ storage, sleep: tick }));
    expect(log.slice(0, 2)).toEqual([`${log[0]?.split(' ')[0]} in`, `${log[0]?.split(' ')[0]} out`]);
    expect(log).toHaveLength(4);
    expect(map.size).toBe(0);
  });

  it('takes over a lease whose tab died holding it', async () => {
    const map = new Map<string, string>([['lock:refresh', JSON.stringify({ owner: 'dead', until: 5 })]]);
    const storage: StorageLike = {
      getItem: (k) => map.get(k) ?? null,
      setItem: (k, v) => void map.set(k, v),
      removeItem: (k) => void map.delete(k),
    };
    expect(await withBrowserLock('refresh', async () => 'ran', { storage, now: () => 10, sleep: tick })).toBe(
      'ran',
    );
  });
});
