import { describe, expect, it } from 'vitest';
import type { Clock } from '../market/clock';
import { ExitWatcher, exitReason } from './rules.exits';
import type { DecisionRow, RulesRepo } from './rules.repo';

function opened(over: Partial<DecisionRow>): DecisionRow {
  return {
    id: 1,
    userId: 'u',
    ruleId: 'r',
    ruleName: 'n',
    ruleVersion: 1,
    signalId: 1,
    asset: 'SOL',
    symbol: 'SOLUSDT',
    side: 'long',
    amountUsd: '100',
    outcome: 'fired',
    reason: null,
    detail: null,
    engine: 'local',
    sentiment: 'positive',
    impact: 80,
    price: '100',
    orderId: '1',
    quantity: '1',
    notional: '100',
    latencyMs: 3,
    exitPlan: { take_profit_pct: 3, stop_loss_pct: 2, max_hold_minutes: 30 },
    exitState: 'open',
    exitNote: null,
    decidedAt: new Date(0),
    account: 'paper',
    accountMode: 'paper',
    arrivalPrice: '100',
    fee: '0.05',
    signalPublishedAt: null,
    signalReceivedAt: null,
    signalAnalysedAt: null,
    sentAt: null,
    ackedAt: null,
    askExpiresAt: null,
    answeredVia: null,
    answeredAt: null,
    twinPrice: null,
    twinQuantity: null,
    twinFee: null,
    twinRefused: null,
    exitOrderId: null,
    exitPnl: null,
    retractedBy: null,
    signalSource: null,
    ...over,
  };
}

describe('rule exits', () => {
  it('takes profit and stops loss in the direction of the position', () => {
    expect(exitReason(opened({}), 103, 60_000)).toBe('take profit: 3.00% at 103');
    expect(exitReason(opened({}), 102.9, 60_000)).toBeNull();
    expect(exitReason(opened({}), 98, 60_000)).toBe('stop loss: -2.00% at 98');
    expect(exitReason(opened({ side: 'short' }), 97, 60_000)).toBe('take profit: 3.00% at 97');
    expect(exitReason(opened({ side: 'short' }), 102, 60_000)).toBe('stop loss: -2.00% at 102');
  });

  it('closes after the holding time, with or without a mark', () => {
    expect(exitReason(opened({}), 100.5, 30 * 60_000 - 1)).toBeNull();
    expect(exitReason(opened({}), 100.5, 30 * 60_000)).toBe('max hold of 30 min at 100.5');
    expect(exitReason(opened({}), undefined, 31 * 60_000)).toBe('max hold of 30 min');
  });

  it('does nothing for a position without a plan', () => {
    expect(exitReason(opened({ exitPlan: null }), 1000, 1e12)).toBeNull();
  });
});

describe('exit watcher', () => {
  it('watches a decision told as fired at once, without reading the open exits again', async () => {
    const closed: number[] = [];
    let reads = 0;
    const marks = new Map([['SOLUSDT', 100]]);
    const watcher = new ExitWatcher({
      repo: {
        openExits: async () => {
          reads += 1;
          return [];
        },
        closeExit: async () => true,
        updateDecision: async () => undefined,
      } as unknown as RulesRepo,
      clock: { now: () => 60_000 } as Clock,
      priceOf: (symbol) => marks.get(symbol),
      reduce: async (d) => {
        closed.push(d.id);
        return null;
      },
      log: { warn: () => undefined },
    });
    await watcher.reload();
    watcher.track(opened({ id: 7 }));
    watcher.track(opened({ id: 7 }));
    watcher.track(opened({ id: 8, exitPlan: null }));
    expect(watcher.count).toBe(1);
    await watcher.check(new Set(['SOLUSDT']));
    expect(closed).toEqual([]);
    marks.set('SOLUSDT', 104);
    await watcher.check(new Set(['SOLUSDT']));
    expect(closed).toEqual([7]);
    expect(reads).toBe(1);
  });
});
