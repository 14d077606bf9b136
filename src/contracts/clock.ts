/**
 * Time, injected wherever something waits (polling, back-off, batching, heartbeats, the simulator) so
 * that tests run it on a fake clock instead of sleeping. One definition for browser and server.
 */
export interface Clock {
  now(): number;
  /** Runs `fn` once after `ms`; the returned function cancels it. */
  setTimer(fn: () => void, ms: number): () => void;
}

export type Disposer = () => void;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const handle = setTimeout(fn, ms);
    return () => clearTimeout(handle);
  },
};

/**
 * Calls `fn` every `ms` until the returned disposer runs. The next call is scheduled before `fn` runs,
 * so a throwing `fn` never stops the schedule.
 */
export function every(clock: Clock, ms: number, fn: () => void): Disposer {
  let stopped = false;
  let cancel = (): void => undefined;
  const tick = (): void => {
    if (stopped) return;
    cancel = clock.setTimer(tick, ms);
    fn();
  };
  cancel = clock.setTimer(tick, ms);
  return () => {
    stopped = true;
    cancel();
  };
}
