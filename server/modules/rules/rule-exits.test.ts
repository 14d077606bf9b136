import { describe, expect, it } from 'vitest';
import { dueReason, ExitWatcher, exitClientId, exitReason, type ExitRepo } from './rule-exits';
import { decisionRow as opened } from '../../../tests/fixtures/decision-row';
import type { DecisionRow } from './rules.types';

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

  it('leaves a stop and a target that rest on the exchange to it, and still runs the max hold', () => {
    const guarded = opened({ exitOnVenue: true });
    expect(exitReason(guarded, 90, 60_000)).toBeNull();
    expect(exitReason(guarded, 110, 60_000)).toBeNull();
    expect(exitReason(guarded, 90, 30 * 60_000)).toBe('max hold of 30 min at 90');
  });

  it('does nothing for a position without a plan', () => {
    expect(exitReason(opened({ exitPlan: null }), 1000, 1e12)).toBeNull();
  });

  it('is due for a close begun before (its first reason), or a retracted story unless the rule keeps it', () => {
    expect(dueReason(opened({ exitReason: 'stop loss: -2.00% at 98' }), 100, 0)).toBe(
      'stop loss: -2.00% at 98',
    );
    expect(dueReason(opened({ exitPlan: null, retractedBy: 12 }), undefined, 0)).toBe(
      'closed: retracted by #12',
    );
    const keeps = opened({ exitPlan: { on_retraction: 'keep' }, retractedBy: 12 });
    expect(dueReason(keeps, undefined, 0)).toBeNull();
    expect(dueReason(opened({}), 103, 60_000)).toBe('take profit: 3.00% at 103');
  });

  it("names a close's orders: the same id for every try, a new one only after an order ended unfilled", () => {
    expect(exitClientId(7)).toBe('sc-exit-7');
    expect(exitClientId(7, 'sc-exit-7')).toBe('sc-exit-7-1');
    expect(exitClientId(7, 'sc-exit-7-1')).toBe('sc-exit-7-2');
    expect(exitClientId(123456789012, 'sc-exit-123456789012-99').length).toBeLessThanOrEqual(36);
  });
});

describe('exit watcher', () => {
  it('watches a decision told as fired at once, without reading the open exits again', async () => {
    const closed: number[] = [];
    let reads = 0;
    const marks = new Map([['SOLUSDT', 100]]);
    const rows = new Map<number, DecisionRow>();
    const repo: Partial<ExitRepo> = {
      openExits: async () => {
        reads += 1;
        return [];
      },
      claimExit: async (id, claim) => {
        const row = rows.get(id) ?? opened({ id });
        const claimed = {
          ...row,
          exitState: 'closing' as const,
          exitStartedAt: claim.now,
          exitReason: row.exitReason ?? claim.reason,
          exitClientId: row.exitClientId ?? claim.clientId,
        };
        rows.set(id, claimed);
        return claimed;
      },
      completeExit: async () => true,
    };
    const watcher = new ExitWatcher({
      repo: repo as ExitRepo,
      clock: { now: () => 60_000, setTimer: () => () => undefined },
      priceOf: (d) => marks.get(d.symbol),
      reduce: async (d, clientOrderId) => {
        closed.push(d.id);
        expect(clientOrderId).toBe(`sc-exit-${d.id}`);
        return null;
      },
      find: async () => null,
      log: { warn: () => undefined, info: () => undefined },
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
    expect(watcher.count).toBe(0);
    expect(reads).toBe(1);
  });

  it('keeps watching a decision that fired while a reload was reading the open exits', async () => {
    let answer: (rows: DecisionRow[]) => void = () => undefined;
    const repo: Partial<ExitRepo> = {
      openExits: () => new Promise<DecisionRow[]>((resolve) => (answer = resolve)),
    };
    const watcher = new ExitWatcher({
      repo: repo as ExitRepo,
      clock: { now: () => 60_000, setTimer: () => () => undefined },
      priceOf: () => undefined,
      reduce: async () => null,
      find: async () => null,
      log: { warn: () => undefined, info: () => undefined },
    });
    // The read started before decision 9 was written, and answers after it was tracked.
    const reading = watcher.reload();
    watcher.track(opened({ id: 9 }));
    answer([opened({ id: 3 })]);
    await reading;
    expect(watcher.count).toBe(2);
    // Of two reads under way, the older one answering last leaves the newer one's rows.
    const answers: ((rows: DecisionRow[]) => void)[] = [];
    repo.openExits = () => new Promise<DecisionRow[]>((resolve) => answers.push(resolve));
    const older = watcher.reload();
    const newer = watcher.reload();
    answers[1]?.([opened({ id: 3 }), opened({ id: 9 }), opened({ id: 10 })]);
    await newer;
    answers[0]?.([]);
    await older;
    expect(watcher.count).toBe(3);
  });
});
