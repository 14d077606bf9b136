/**
 * Time as the market module sees it: injected so that the watchdog, back-off, batching and the
 * simulator run under a fake clock in tests. Same shape as the browser core's `Clock`.
 */
export interface Clock {
  now(): number;
  /** Runs `fn` once after `ms`; the returned function cancels it. */
  setTimer(fn: () => void, ms: number): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const handle = setTimeout(fn, ms);
    return () => clearTimeout(handle);
  },
};

/** Calls `fn` every `ms` until the returned disposer runs. */
export function every(clock: Clock, ms: number, fn: () => void): () => void {
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

export type Disposer = () => void;
