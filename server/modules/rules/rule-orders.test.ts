import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../../../src/services/testing/fakeClock';
import type { OrderResponse } from '../../../src/contracts/trading';
import { appError } from '../../plugins/errors';
import { RuleOrders, type RuleTrading } from './rule-orders';
import type { RulesRepo } from './rules.repo';
import type { DecisionRow } from './rules.types';

const T0 = Date.UTC(2026, 11, 3, 9, 0);

describe('an order of unknown outcome', () => {
  it('is looked up again on the injected clock, after the settle time, and stops with the orders', async () => {
    const clock = createFakeClock(T0);
    const looked: string[] = [];
    const skipped: string[] = [];
    const repo = {
      markSending: async () => true,
      updateDecision: async () => undefined,
      settle: async (_id: number, set: { reason?: string }) => {
        if (set.reason !== undefined) skipped.push(set.reason);
        return { won: true, retractedBy: null };
      },
    } as unknown as RulesRepo;
    const trading: RuleTrading = {
      placeOrder: async () => {
        throw appError('OUTCOME_UNKNOWN', 'Binance did not answer.');
      },
      findOrder: async (_user, key) => {
        looked.push(key);
        return null as OrderResponse | null;
      },
      openPositions: async () => 0,
      venueOf: async () => ({ venue: 'binance', mode: 'live', keyHint: 'ab…cd' }),
      paperTwin: async () => ({ refused: 'not here' }),
    };
    const orders = new RuleOrders({
      repo,
      trading,
      clock,
      log: { info: () => undefined, warn: () => undefined },
      unknownRecheckMs: 6_000,
      stats: { fired: 0, skipped: 0 },
    });
    const decision = { id: 1, userId: 'u', ruleId: 'r', signalId: 9, symbol: 'ETHUSDT', side: 'long' };
    const venue = { venue: 'binance', mode: 'live', keyHint: 'ab…cd' } as const;
    expect(
      await orders.send(
        { ...decision, amountUsd: '100', exitPlan: null } as unknown as DecisionRow,
        T0,
        venue,
      ),
    ).toBeNull();
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(5_999);
    expect(looked).toEqual([]);
    clock.advance(1);
    await new Promise((r) => setImmediate(r));
    expect(looked).toHaveLength(1);
    await new Promise((r) => setImmediate(r));
    expect(skipped).toEqual(['exchange']);

    // A look-up scheduled when the orders stop never runs.
    await orders.send(
      { ...decision, id: 2, amountUsd: '100', exitPlan: null } as unknown as DecisionRow,
      T0,
      venue,
    );
    expect(clock.pendingTimers()).toBe(1);
    orders.stop();
    expect(clock.pendingTimers()).toBe(0);
  });
});
