import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../../../src/services/testing/fakeClock';
import { RiskService } from './risk.service';
import type { RulesRepo } from './rules.repo';
import type { RiskRow } from './rules.types';

/**
 * A ledger of risk rows in memory that counts its reads the way the repo batches them: the reads asked
 * in one tick make one statement. `hold` keeps the next reads' answers until `release`.
 */
function rows() {
  const stored = new Map<string, RiskRow>();
  const statements: string[][] = [];
  let open: string[] | null = null;
  let held: (() => void)[] | null = null;
  const fired = { lastOnAsset: null as Date | null };
  const repo = {
    async risk(userId: string): Promise<RiskRow | null> {
      if (open === null) {
        const statement: string[] = [];
        open = statement;
        statements.push(statement);
        queueMicrotask(() => (open = null));
      }
      open.push(userId);
      const answer = stored.get(userId) ?? null;
      if (held !== null) await new Promise<void>((resolve) => held?.push(resolve));
      return answer;
    },
    async saveRisk(userId: string, set: Partial<RiskRow>, base: Omit<RiskRow, 'updatedAt'>) {
      const row = { ...base, ...stored.get(userId), ...set, updatedAt: new Date() } as RiskRow;
      stored.set(userId, row);
      return row;
    },
    async firedStats() {
      return { spent: 0, lastOnAsset: fired.lastOnAsset };
    },
  };
  return {
    repo: repo as unknown as RulesRepo,
    statements,
    /** When a rule last traded the asset, as the ledger answers. */
    fired,
    /** Another process turns the user's kill switch on (its bus message lost: nothing here hears it). */
    switchOffElsewhere(userId: string) {
      const row = stored.get(userId);
      if (row === undefined) throw new Error('no row');
      stored.set(userId, { ...row, killSwitch: true });
    },
    hold() {
      held = [];
    },
    release() {
      const waiting = held ?? [];
      held = null;
      for (const go of waiting) go();
    },
  };
}

const users = Array.from({ length: 30 }, (_, i) => `user-${i}`);

/** An automated order's checks now, of an amount every default limit allows. */
const orderNow = (risk: RiskService, clock: { now(): number }, userId: string) =>
  risk.checkAutomated(userId, {
    asset: 'BTC',
    amountUsd: 100,
    receivedAt: clock.now(),
    openPositions: async () => 0,
  });

describe('risk rows read ahead of the orders', () => {
  it('reads the rows of the users whose rules are active in one statement, and the first order waits for none', async () => {
    const clock = createFakeClock(Date.UTC(2026, 10, 27, 12));
    const db = rows();
    const risk = new RiskService(db.repo, clock);
    await risk.keepFresh(users);
    expect(db.statements).toEqual([users]);
    const check = (userId: string) => orderNow(risk, clock, userId);
    expect(await Promise.all(users.map(check))).toEqual(users.map(() => null));
    expect(db.statements).toHaveLength(1);
  });

  it('keeps the rows in use young from the sweep, and sees another process’s kill switch within the same five seconds', async () => {
    const clock = createFakeClock(Date.UTC(2026, 10, 27, 12));
    const db = rows();
    const risk = new RiskService(db.repo, clock);
    for (const u of users) await risk.update(u, { max_order_usd: 500 });
    const check = (userId: string) => orderNow(risk, clock, userId);
    await Promise.all(users.map(check));
    db.switchOffElsewhere('user-7');
    // The sweep runs every second; an order comes every 700 ms.
    let firstSeen: number | null = null;
    const start = clock.now();
    for (let ms = 0; ms <= 20_000; ms += 100) {
      if (ms % 1_000 === 0) await risk.keepFresh();
      if (ms % 700 === 0) {
        const before = db.statements.length;
        const answers = await Promise.all(users.map(check));
        // The order never waits for a read of its own.
        expect(db.statements.length).toBe(before);
        if (firstSeen === null && answers[7]?.reason === 'kill_switch') firstSeen = clock.now() - start;
      }
      clock.advance(100);
    }
    expect(firstSeen).not.toBeNull();
    expect(firstSeen).toBeLessThan(5_000);
    // One statement for every user each time, not one per user.
    expect(db.statements.every((s) => s.length === users.length)).toBe(true);
    expect(db.statements.length).toBeLessThanOrEqual(8);
  });

  it('drops a row no order read for a minute instead of reading it again', async () => {
    const clock = createFakeClock(Date.UTC(2026, 10, 27, 12));
    const db = rows();
    const risk = new RiskService(db.repo, clock);
    await risk.keepFresh(['a', 'b']);
    for (let s = 0; s < 100; s++) {
      clock.advance(1_000);
      if (s < 30) await risk.settings('a');
      await risk.keepFresh();
    }
    const reads = db.statements.flat();
    expect(reads.filter((u) => u === 'b').length).toBeLessThan(30);
    const lastOfA = db.statements.findLastIndex((s) => s.includes('a'));
    const lastOfB = db.statements.findLastIndex((s) => s.includes('b'));
    expect(lastOfA).toBeGreaterThan(lastOfB);
    const before = db.statements.length;
    for (let s = 0; s < 10; s++) {
      clock.advance(1_000);
      await risk.keepFresh();
    }
    expect(db.statements.length).toBe(before);
  });

  it('does not keep a read that was under way when the kill switch was turned on here', async () => {
    const clock = createFakeClock(Date.UTC(2026, 10, 27, 12));
    const db = rows();
    const risk = new RiskService(db.repo, clock);
    await risk.update('u', { max_order_usd: 500 });
    clock.advance(3_000);
    db.hold();
    // The read takes the row as it is now, switch off, and answers only after the switch is written.
    const reading = risk.keepFresh();
    await risk.killSwitch('u', true);
    db.release();
    await reading;
    expect((await orderNow(risk, clock, 'u'))?.reason).toBe('kill_switch');
  });
});

describe('the cooldown', () => {
  it('of 0 minutes never holds, even when a decision beside this one carries a later time', async () => {
    const clock = createFakeClock(Date.UTC(2026, 10, 27, 12));
    const db = rows();
    const risk = new RiskService(db.repo, clock);
    db.fired.lastOnAsset = new Date(clock.now() + 2_000);
    await risk.update('u', { cooldown_minutes: 0 });
    expect(await orderNow(risk, clock, 'u')).toBeNull();
    await risk.update('u', { cooldown_minutes: 15 });
    expect(await orderNow(risk, clock, 'u')).toMatchObject({
      reason: 'cooldown',
      detail: 'A rule traded BTC less than 15 min ago (15 min left).',
    });
  });
});
