import type { Clock, Disposer } from '../news.types';

export interface PollOptions {
  clock: Clock;
  intervalMs: number;
  /** Upper bound of the back-off after failures. */
  maxBackoffMs: number;
  /** One poll; throws on failure. May return a delay the server asked for (Retry-After). */
  run: (signal: AbortSignal) => Promise<number | void>;
  onSuccess: () => void;
  onFailure: (err: unknown, failures: number, retryInMs: number) => void;
}

/** The delay after `failures` failures in a row: doubling from the interval, capped. */
export function backoffMs(intervalMs: number, failures: number, maxMs: number): number {
  return Math.min(maxMs, intervalMs * 2 ** Math.min(failures, 20));
}

/** An error carrying the delay the server asked for (HTTP 429 / Retry-After, Telegram retry_after). */
export class RetryAfterError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs: number,
  ) {
    super(message);
  }
}

/** Runs `run` now, then again `intervalMs` after each success or after a back-off after a failure. */
export function startPolling(o: PollOptions): Disposer {
  let stopped = false;
  let failures = 0;
  let cancelTimer: Disposer = () => undefined;
  const controller = new AbortController();
  const tick = async (): Promise<void> => {
    if (stopped) return;
    let next = o.intervalMs;
    try {
      const asked = await o.run(controller.signal);
      failures = 0;
      if (typeof asked === 'number') next = asked;
      if (!stopped) o.onSuccess();
    } catch (err) {
      if (stopped) return;
      failures += 1;
      next = backoffMs(o.intervalMs, failures, o.maxBackoffMs);
      if (err instanceof RetryAfterError) next = Math.max(next, err.retryAfterMs);
      o.onFailure(err, failures, next);
    }
    if (!stopped) cancelTimer = o.clock.setTimer(() => void tick(), next);
  };
  cancelTimer = o.clock.setTimer(() => void tick(), 0);
  return () => {
    stopped = true;
    cancelTimer();
    controller.abort();
  };
}

/** Milliseconds from a Retry-After header (seconds or an HTTP date); null when absent. */
export function retryAfterMs(header: string | null, now: number): number | null {
  if (header === null || header.trim() === '') return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
