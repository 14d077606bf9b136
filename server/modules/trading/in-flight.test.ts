import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../../../src/services/testing/fakeClock';
import type { HeldRequest } from './idempotency.repo';
import { awaitInFlight, IN_FLIGHT_MS, IN_FLIGHT_POLL_MS } from './in-flight';

function held(state: HeldRequest['state'], updatedAt: number): HeldRequest {
  return {
    requestHash: 'h',
    clientOrderId: 'sc-1',
    account: 'paper',
    symbol: 'BTCUSDT',
    state,
    orderId: state === 'filled' ? '7' : null,
    error: null,
    updatedAt: new Date(updatedAt),
  };
}

/** Lets the waiter's promise chain run up to its next timer. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('waiting for a try of the same key that is still in flight', () => {
  it('reads the key on the clock until the other try ends, and answers how it ended', async () => {
    const clock = createFakeClock(1_000_000);
    let reads = 0;
    const states: HeldRequest[] = [held('sent', clock.now()), held('filled', clock.now())];
    let done: HeldRequest | undefined;
    void awaitInFlight(clock, held('sent', clock.now()), async () => {
      reads += 1;
      return reads < 3 ? (states[0] ?? null) : (states[1] ?? null);
    }).then((h) => (done = h));

    await settle();
    expect(reads).toBe(0);
    clock.advance(IN_FLIGHT_POLL_MS - 1);
    await settle();
    expect(reads).toBe(0);
    for (let i = 0; i < 3; i += 1) {
      clock.advance(IN_FLIGHT_POLL_MS);
      await settle();
    }
    expect(reads).toBe(3);
    expect(done?.state).toBe('filled');
    expect(clock.pendingTimers()).toBe(0);
  });

  it('gives up on a try that stays in flight after IN_FLIGHT_MS of clock time, with the latest state', async () => {
    const clock = createFakeClock(1_000_000);
    const start = clock.now();
    let done: HeldRequest | undefined;
    void awaitInFlight(clock, held('claimed', start), async () => held('sent', start)).then(
      (h) => (done = h),
    );
    for (let t = 0; t < IN_FLIGHT_MS - IN_FLIGHT_POLL_MS; t += IN_FLIGHT_POLL_MS) {
      clock.advance(IN_FLIGHT_POLL_MS);
      await settle();
    }
    expect(done).toBeUndefined();
    for (let t = 0; t < 2 * IN_FLIGHT_POLL_MS; t += IN_FLIGHT_POLL_MS) {
      clock.advance(IN_FLIGHT_POLL_MS);
      await settle();
    }
    expect(done?.state).toBe('sent');
    expect(clock.now() - start).toBeLessThanOrEqual(IN_FLIGHT_MS + IN_FLIGHT_POLL_MS);
  });

  it('answers at once, without waiting, a key that already ended or went quiet long ago', async () => {
    const clock = createFakeClock(1_000_000);
    const read = async () => {
      throw new Error('not read');
    };
    await expect(awaitInFlight(clock, held('failed', clock.now()), read)).resolves.toMatchObject({
      state: 'failed',
    });
    const stale = held('sent', clock.now() - IN_FLIGHT_MS - 1);
    await expect(awaitInFlight(clock, stale, read)).resolves.toBe(stale);
    expect(clock.pendingTimers()).toBe(0);
  });
});
