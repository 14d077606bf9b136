import type { Clock } from '../market/clock';

/**
 * Work queued per key (an account: user and account name), one task at a time per key and the keys in
 * parallel: one account's slow close never holds another account's.
 */
export class KeyedQueues {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `task` after the tasks queued under `key` before it; answers what it answered. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const result = (this.tails.get(key) ?? Promise.resolve()).then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}

/** `work`'s answer, or 'late' once `ms` passed first (the work goes on; its answer is then another's). */
export function withDeadline<T>(clock: Clock, ms: number, work: Promise<T>): Promise<T | 'late'> {
  let cancel: () => void = () => undefined;
  const late = new Promise<'late'>((resolve) => {
    cancel = clock.setTimer(() => resolve('late'), ms);
  });
  return Promise.race([work, late]).finally(() => cancel());
}
