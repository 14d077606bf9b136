import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../server/db/client';
import { users } from '../../server/db/schema';
import { RiskService, startOfUtcDay } from '../../server/modules/rules/risk.service';
import { RulesRepo } from '../../server/modules/rules/rules.repo';
import { createFakeClock } from '../../src/services/testing/fakeClock';
import { dbTargets, useDatabase } from '../helpers/db';

const MIN = 60_000;

describe.each(dbTargets())('risk envelope with a fake clock on %s', (name) => {
  const target = useDatabase(name);
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
  it("reads what counts for the engine's book: pending and recent decisions one by one, older fills summed", async () => {
    const now = clock.now();
    const midnight = startOfUtcDay(now).getTime();
    const [{ id: other } = { id: '' }] = await database.db
      .insert(users)
      .values({ email: 'book@example.com', username: 'book' })
      .returning();
    const rule = await repo.insert({
      userId: other,
      name: 'b',
      side: 'long',
      amountUsd: '100',
      isActive: true,
    });
    let signalId = 1000;
    const decide = (asset: string, at: number, outcome: 'fired' | 'pending' | 'skipped', notional?: string) =>
      repo.claimDecision({
        userId: other,
        ruleId: rule.id,
        ruleName: 'b',
        ruleVersion: 1,
        signalId: signalId++,
        asset,
        symbol: `${asset}USDT`,
        side: 'long',
        amountUsd: '100',
        outcome,
        ...(notional === undefined ? {} : { notional }),
        decidedAt: new Date(at),
      });
    await decide('BTC', midnight - 3 * 86_400_000, 'fired', '99'); // beyond the reach
    await decide('BTC', midnight - 7_200_000, 'fired', '101.5');
    await decide('BTC', midnight - 3_600_000, 'fired', '98.25');
    await decide('BTC', midnight + 60_000, 'fired', '100.1');
    await decide('ETH', midnight + 120_000, 'fired', '99.9');
    await decide('ETH', midnight + 180_000, 'skipped');
    const pending = await decide('ETH', midnight + 240_000, 'pending');
    const recent = await decide('BTC', now - 60_000, 'fired', '97');
    const rows = await repo.countedDecisions(
      [other],
      new Date(now - 2 * 86_400_000),
      new Date(midnight),
      new Date(now - 5 * MIN),
    );
    const byKey = (r: { asset: string; id: number | null; at: number }) =>
      `${r.asset} ${r.id ?? 'sum'} ${r.at}`;
    expect(
      rows
        .map((r) => ({ ...r, cost: Math.round(r.cost * 100) / 100 }))
        .sort((a, b) => byKey(a).localeCompare(byKey(b))),
    ).toEqual(
      [
        { userId: other, id: null, asset: 'BTC', at: midnight - 3_600_000, cost: 199.75 },
        { userId: other, id: null, asset: 'BTC', at: midnight + 60_000, cost: 100.1 },
        { userId: other, id: recent!.id, asset: 'BTC', at: now - 60_000, cost: 97 },
        { userId: other, id: null, asset: 'ETH', at: midnight + 120_000, cost: 99.9 },
        { userId: other, id: pending!.id, asset: 'ETH', at: midnight + 240_000, cost: 100 },
      ].sort((a, b) => byKey(a).localeCompare(byKey(b))),
    );
  });
});
