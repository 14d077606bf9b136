/** Time, injected so polling and back-off are tested with a fake clock instead of sleeps. */
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
  let cancel = (): void => undefined;
  let stopped = false;
  const tick = (): void => {
    if (stopped) return;
    fn();
    cancel = clock.setTimer(tick, ms);
  };
  cancel = clock.setTimer(tick, ms);
  return () => {
    stopped = true;
    cancel();
  };
}
