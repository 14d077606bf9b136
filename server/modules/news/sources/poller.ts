import { backoffMs } from '../../../../src/contracts/backoff';
import type { Clock, Disposer } from '../news.types';

export interface PollOptions {
  clock: Clock;
  intervalMs: number;
  /** Upper bound of the back-off after failures. */
  maxBackoffMs: number;
  /**
   * One poll; throws on failure. May return a delay the server asked for (Retry-After). `first`: no poll
   * has succeeded since start, so what it brings was waiting there (backlog), not news arriving now.
   */
  run: (signal: AbortSignal, first: boolean) => Promise<number | void>;
  onSuccess: () => void;
  onFailure: (err: unknown, failures: number, retryInMs: number) => void;
  /** The jitter's randomness (`Math.random`); tests pass a fixed one. */
  random?: () => number;
}

/**
 * The delay after `failures` failures in a row: doubling from the interval, capped, with equal jitter
 * so a failing source never polls sooner than its interval and sources that failed together spread out.
 */
export function pollBackoffMs(
  intervalMs: number,
  failures: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  return backoffMs(failures, { baseMs: intervalMs, maxMs, jitter: 'equal', random });
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
  let succeeded = false;
  let cancelTimer: Disposer = () => undefined;
  const controller = new AbortController();
  const tick = async (): Promise<void> => {
    if (stopped) return;
    let next = o.intervalMs;
    try {
      const asked = await o.run(controller.signal, !succeeded);
      succeeded = true;
      failures = 0;
      if (typeof asked === 'number') next = asked;
      if (!stopped) o.onSuccess();
    } catch (err) {
      if (stopped) return;
      failures += 1;
      next = pollBackoffMs(o.intervalMs, failures, o.maxBackoffMs, o.random);
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
