import { describe, expect, it } from 'vitest';
import type { SubscriptionView } from '../contracts/billing';
import { formatDay, watchPending, type PendingState } from './premium';
import { createFakeApi } from './testing/fakeApi';
import { createFakeClock } from './testing/fakeClock';

const view = (status: SubscriptionView['status']): SubscriptionView => ({
  status,
  current_period_end: null,
  plan: null,
  provider: null,
  trial_end: null,
  subscriptions: [],
  trial_used: false,
});

/** Lets the fake fetch answer (its promises settle over a few microtask turns). */
const settle = async () => {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
  await new Promise((r) => setTimeout(r, 0));
};

function pending(answer: () => { status: number; body: unknown }) {
  const { server, api } = createFakeApi();
  server.on('GET /subscriptions/me', answer);
  const clock = createFakeClock(1_000_000);
  const states: PendingState[] = [];
  const active: SubscriptionView[] = [];
  const stop = watchPending({
    main: api.main,
    clock,
    onState: (s) => states.push(s),
    onActive: (v) => active.push(v),
  });
  return { server, clock, states, active, stop };
}

describe('the payment pending watch', () => {
  it('reads the subscription now and every 10 s, and goes on once it is active', async () => {
    let status: SubscriptionView['status'] = 'inactive';
    const p = pending(() => ({ status: 200, body: view(status) }));
    await settle();
    expect(p.server.count('GET /subscriptions/me')).toBe(1);
    p.clock.advance(9_999);
    await settle();
    expect(p.server.count('GET /subscriptions/me')).toBe(1);
    p.clock.advance(1);
    await settle();
    expect(p.server.count('GET /subscriptions/me')).toBe(2);
    status = 'active';
    p.clock.advance(10_000);
    await settle();
    expect(p.active.map((v) => v.status)).toEqual(['active']);
    p.clock.advance(60_000);
    await settle();
    expect(p.server.count('GET /subscriptions/me')).toBe(3);
  });

  it('gives up after 300 s with the longer-wait state, and reads no more', async () => {
    const p = pending(() => ({ status: 200, body: view('inactive') }));
    for (let t = 0; t < 30; t += 1) {
      await settle();
      p.clock.advance(10_000);
    }
    await settle();
    expect(p.states.at(-1)).toEqual({ phase: 'slow', checks: 31 });
    expect(p.states.filter((s) => s.phase === 'slow')).toHaveLength(1);
    p.clock.advance(100_000);
    await settle();
    expect(p.server.count('GET /subscriptions/me')).toBe(31);
    expect(p.active).toEqual([]);
  });

  it('shows docs/product.md §8’s message when the status cannot be read, and tries again', async () => {
    let fail = true;
    const p = pending(() => (fail ? { status: 500, body: {} } : { status: 200, body: view('active') }));
    await settle();
    expect(p.states.at(-1)).toEqual({
      phase: 'unreadable',
      checks: 1,
      message: 'Could not verify subscription status. Please check your account page or contact support.',
    });
    fail = false;
    p.clock.advance(10_000);
    await settle();
    expect(p.active).toHaveLength(1);
  });

  it('stops reading when disposed', async () => {
    const p = pending(() => ({ status: 200, body: view('inactive') }));
    await settle();
    p.stop();
    p.clock.advance(60_000);
    await settle();
    expect(p.server.count('GET /subscriptions/me')).toBe(1);
  });
});

describe('formatDay', () => {
  it('prints a UTC day, and null for nothing', () => {
    expect(formatDay('2026-12-23T23:30:00.000Z')).toBe('23 Dec 2026');
    expect(formatDay(null)).toBeNull();
    expect(formatDay('not a date')).toBeNull();
  });
});
