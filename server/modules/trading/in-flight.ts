import type { Clock } from '../market/clock';
import type { HeldRequest } from './idempotency.repo';

/** How long a retry waits for a try of the same key that is still in flight, and how often it looks. */
export const IN_FLIGHT_MS = 5_000;
export const IN_FLIGHT_POLL_MS = 20;

/** Resolves after `ms` on `clock`. */
export function sleepOn(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => {
    clock.setTimer(resolve, ms);
  });
}

/**
 * While another request holds the key (claimed or sent, moved within `IN_FLIGHT_MS`), reads its state
 * every `IN_FLIGHT_POLL_MS` until it is filled, failed or known to exist, at most `IN_FLIGHT_MS`; answers the latest
 * state seen. `read` gives the key's state now (none: the latest seen stands).
 */
export async function awaitInFlight(
  clock: Clock,
  held: HeldRequest,
  read: () => Promise<HeldRequest | null | undefined>,
): Promise<HeldRequest> {
  let latest = held;
  for (let i = 0; i < IN_FLIGHT_MS / IN_FLIGHT_POLL_MS; i += 1) {
    if (latest.state === 'filled' || latest.state === 'failed' || latest.state === 'exists') return latest;
    if (clock.now() - latest.updatedAt.getTime() > IN_FLIGHT_MS) return latest;
    await sleepOn(clock, IN_FLIGHT_POLL_MS);
    latest = (await read()) ?? latest;
  }
  return latest;
}
