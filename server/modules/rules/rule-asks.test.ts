import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../../../src/services/testing/fakeClock';
import type { PlanReader } from '../billing/plans';
import type { RiskService } from './risk.service';
import { RuleEngine, type DecisionEvent } from './rule-engine';
import type { RulesRepo } from './rules.repo';
import type { DecisionRow } from './rules.types';

const T0 = Date.UTC(2026, 10, 27, 8, 0);

describe('ask rules at start-up', () => {
  it('skips, as unanswered, the proposals whose window closed while no process ran the engine', async () => {
    const clock = createFakeClock(T0);
    const asked: Date[] = [];
    const expired = { id: 7, userId: 'u1', signalId: 123, outcome: 'skipped', reason: 'no_answer' };
    const repo = {
      allActive: async () => [],
      cursor: async () => 10,
      expireAsking: async (now: Date) => {
        asked.push(now);
        return [expired as unknown as DecisionRow];
      },
    } as unknown as RulesRepo;
    const told: [DecisionEvent, number][] = [];
    const engine = new RuleEngine({
      repo,
      risk: { keepFresh: async () => undefined } as unknown as RiskService,
      plans: {} as PlanReader,
      signals: { completedAfter: async () => [], headRev: async () => 10 },
      trading: {} as never,
      priceOf: () => undefined,
      clock,
      log: { info: () => undefined, warn: () => undefined },
      decided: (event, decision) => void told.push([event, decision.id]),
    });
    await engine.start();
    expect(asked).toEqual([new Date(T0)]);
    expect(told).toEqual([['skipped', 7]]);
    expect(engine.stats.skipped).toBe(1);
  });
});
