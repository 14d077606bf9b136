import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../server/db/client';
import { users } from '../../server/db/schema';
import { RiskService, startOfUtcDay } from '../../server/modules/rules/risk.service';
import { RulesRepo } from '../../server/modules/rules/rules.repo';
import { createFakeClock } from '../../src/services/testing/fakeClock';
import { dbTargets } from '../helpers/db';

const MIN = 60_000;

describe.each(dbTargets())('risk envelope with a fake clock on $name', (target) => {
  let database: Database;
  let repo: RulesRepo;
  let userId: string;
  const clock = createFakeClock(Date.UTC(2026, 10, 23, 23, 50));

  beforeAll(async () => {
    database = await target.open();
    repo = new RulesRepo(database.db);
    const [row] = await database.db
      .insert(users)
      .values({ email: 'risk@example.com', username: 'risk' })
      .returning();
    userId = row!.id;
  });
  afterAll(async () => {
    await database.close();
    await target.cleanup();
  });

  const check = (risk: RiskService, receivedAt = clock.now()) =>
    risk.checkAutomated(userId, { asset: 'ETH', amountUsd: 300, receivedAt, openPositions: async () => 0 });

  it('turns a timed kill switch off by itself when its time comes', async () => {
    const risk = new RiskService(repo, clock);
    await risk.killSwitch(userId, true, 30);
    expect((await check(risk))?.reason).toBe('kill_switch');
    clock.advance(29 * MIN);
    expect((await check(risk))?.reason).toBe('kill_switch');
    clock.advance(2 * MIN);
    expect(await check(risk)).toBeNull();
    expect((await risk.state(userId)).kill_switch).toBe(false);
  });

  it('measures age at decision time, and resets the daily budget at midnight UTC', async () => {
    const risk = new RiskService(repo, clock);
    expect((await check(risk, clock.now() - 15_001))?.reason).toBe('stale');
    expect(await check(risk, clock.now() - 15_000)).toBeNull();
    await risk.update(userId, { daily_budget_usd: 500, cooldown_minutes: 0 });
    await repo.claimDecision({
      userId,
      ruleId: (
        await repo.insert({ userId, name: 'r', side: 'long', amountUsd: '300', asset: 'ETH', isActive: true })
      ).id,
      ruleName: 'r',
      ruleVersion: 1,
      signalId: 1,
      asset: 'ETH',
      symbol: 'ETHUSDT',
      side: 'long',
      amountUsd: '300',
      outcome: 'fired',
      notional: '300',
      decidedAt: new Date(clock.now()),
    });
    expect((await check(risk))?.reason).toBe('budget');
    clock.advance(startOfUtcDay(clock.now()).getTime() + 24 * 60 * MIN - clock.now() + 1000);
    expect(await check(risk)).toBeNull();
  });

  it('holds the cooldown per asset', async () => {
    const risk = new RiskService(repo, clock);
    await risk.update(userId, { cooldown_minutes: 15, daily_budget_usd: 10_000 });
    await repo.claimDecision({
      userId,
      ruleId: (
        await repo.insert({ userId, name: 'c', side: 'long', amountUsd: '100', asset: 'ETH', isActive: true })
      ).id,
      ruleName: 'c',
      ruleVersion: 1,
      signalId: 2,
      asset: 'ETH',
      symbol: 'ETHUSDT',
      side: 'long',
      amountUsd: '100',
      outcome: 'fired',
      notional: '100',
      decidedAt: new Date(clock.now()),
    });
    expect((await check(risk))?.detail).toBe('A rule traded ETH less than 15 min ago (15 min left).');
    clock.advance(15 * MIN);
    expect(await check(risk)).toBeNull();
  });
});
