import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Batcher, batchStats } from '../../server/db/batch';
import type { Database } from '../../server/db/client';
import { orderRequests, paperLedger, ruleDecisions, users } from '../../server/db/schema';
import { RulesRepo } from '../../server/modules/rules/rules.repo';
import type { NewDecisionRow } from '../../server/modules/rules/rules.types';
import { IdempotencyRepo } from '../../server/modules/trading/idempotency.repo';
import { LedgerRepo } from '../../server/modules/trading/paper/ledger.repo';
import { emptyAccount, applyEvent } from '../../server/modules/trading/paper/account';
import { dbTargets, useDatabase } from '../helpers/db';

describe('Batcher', () => {
  it('runs the calls of one moment as one batch, and the calls made meanwhile as the next', async () => {
    const runs: number[][] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const batcher = new Batcher<number, number>(async (items) => {
      runs.push(items);
      if (runs.length === 1) await gate;
      return items.map((i) => i * 10);
    });
    const first = Array.from({ length: 30 }, (_, i) => batcher.add(i));
    await new Promise((r) => setImmediate(r));
    const second = Array.from({ length: 5 }, (_, i) => batcher.add(100 + i));
    release();
    expect(await Promise.all(first)).toEqual(Array.from({ length: 30 }, (_, i) => i * 10));
    expect(await Promise.all(second)).toEqual([1000, 1010, 1020, 1030, 1040]);
    expect(runs.map((r) => r.length)).toEqual([30, 5]);
  });

  it('gives the error of a failed batch to the call at fault only', async () => {
    const batcher = new Batcher<number, number>(async (items) => {
      if (items.includes(13)) throw new Error(`unlucky ${items.length}`);
      return items.map((i) => -i);
    });
    const answers = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => batcher.add(i)));
    answers.forEach((a, i) => {
      if (i === 13) expect(a).toMatchObject({ status: 'rejected', reason: new Error('unlucky 1') });
      else expect(a).toEqual({ status: 'fulfilled', value: -i });
    });
  });
});

describe.each(dbTargets())('writes batched across users on %s', (name) => {
  const target = useDatabase(name);
  let database: Database;
  let userIds: string[] = [];

  beforeAll(async () => {
    database = await target.open();
    const rows = await database.db
      .insert(users)
      .values(Array.from({ length: 30 }, (_, i) => ({ email: `b${i}@example.com`, username: `batch${i}` })))
      .returning({ id: users.id });
    userIds = rows.map((r) => r.id);
  });
  afterAll(async () => {
    await database.close();
    await target.cleanup();
  });

  it('updates thirty decisions at once, each with its own figures, times and nulls', async () => {
    const before = { ...batchStats };
    const repo = new RulesRepo(database.db);
    const decided = new Date('2026-11-20T10:00:00.123Z');
    const claimed = await repo.claimDecisions(
      await Promise.all(
        userIds.map(async (userId, i): Promise<NewDecisionRow> => {
          const rule = await repo.insert({
            userId,
            name: `r${i}`,
            side: 'long',
            amountUsd: '100',
            asset: 'BTC',
            isActive: true,
          });
          return {
            userId,
            ruleId: rule.id,
            ruleName: rule.name,
            ruleVersion: 1,
            signalId: 7,
            asset: 'BTC',
            symbol: 'BTCUSDT',
            side: 'long',
            amountUsd: '100',
            outcome: 'pending',
            detail: 'waiting',
            decidedAt: decided,
          };
        }),
      ),
    );
    const rows = [...claimed.values()];
    expect(rows).toHaveLength(30);
    await Promise.all(
      rows.map((row, i) =>
        i % 3 === 0
          ? repo.updateDecision(row.id, { outcome: 'skipped', reason: 'budget', detail: `no ${i}` })
          : repo.updateDecision(row.id, {
              outcome: 'fired',
              orderId: `order-${i}`,
              price: `${60_000 + i}.5`,
              quantity: '0.0017',
              notional: String(100 + i),
              fee: '0.04',
              detail: null,
              latencyMs: 40 + i,
              sentAt: new Date(decided.getTime() + i),
              ackedAt: new Date(decided.getTime() + 1000 + i),
              exitState: 'open',
            }),
      ),
    );
    for (const [i, row] of rows.entries()) {
      const [after] = await database.db.select().from(ruleDecisions).where(eq(ruleDecisions.id, row.id));
      if (i % 3 === 0) {
        expect(after).toMatchObject({
          outcome: 'skipped',
          reason: 'budget',
          detail: `no ${i}`,
          orderId: null,
        });
      } else {
        expect(after).toMatchObject({
          outcome: 'fired',
          orderId: `order-${i}`,
          price: `${60_000 + i}.5`,
          notional: String(100 + i),
          detail: null,
          latencyMs: 40 + i,
          exitState: 'open',
          reason: null,
        });
        expect(after?.sentAt?.getTime()).toBe(decided.getTime() + i);
        expect(after?.ackedAt?.getTime()).toBe(decided.getTime() + 1000 + i);
      }
    }

    // The risk reads of all thirty users at once: each sees its own spending, and only its own.
    const stats = await Promise.all(
      rows.map((row) => repo.firedStats(row.userId, 'BTC', new Date('2026-11-20T00:00:00Z'))),
    );
    stats.forEach((s, i) => {
      expect(s.spent).toBe(i % 3 === 0 ? 0 : 100 + i);
      expect(s.lastOnAsset?.getTime()).toBe(i % 3 === 0 ? undefined : decided.getTime());
    });
    const excepted = await Promise.all(
      rows.map((row) =>
        repo.firedStats(row.userId, 'BTC', new Date('2026-11-20T00:00:00Z'), undefined, [row.id]),
      ),
    );
    expect(excepted.every((s) => s.spent === 0 && s.lastOnAsset === null)).toBe(true);
    // All of it in a few statements, none run again one by one.
    expect(batchStats.fallbacks).toBe(before.fallbacks);
    expect(batchStats.batches - before.batches).toBeLessThanOrEqual(5);
  });

  it('claims decisions whose text, JSON, nulls and times would break a hand-made array, as drizzle reads them back', async () => {
    const repo = new RulesRepo(database.db);
    const awkward = [
      'say "hi"',
      'back\\slash',
      'a,b{c}',
      'NULL',
      '',
      'new\nline \u00e9 \ud83d\ude80',
      "it's",
    ];
    const decided = new Date('2026-11-21T08:00:00.457Z');
    const asked = new Date('2026-11-21T08:01:00.001Z');
    const input = await Promise.all(
      awkward.map(async (text, i): Promise<NewDecisionRow> => {
        const rule = await repo.insert({
          userId: userIds[i]!,
          name: text,
          side: 'short',
          amountUsd: '12.345',
          asset: 'ETH',
          isActive: true,
        });
        return {
          userId: rule.userId,
          ruleId: rule.id,
          ruleName: text,
          ruleVersion: i + 1,
          signalId: 9_007_199_254_740 + i,
          asset: 'ETH',
          symbol: 'ETHUSDT',
          side: 'short',
          amountUsd: '12.345',
          // One row gives what the others leave out: theirs is null or the column's default.
          ...(i === 0
            ? { outcome: 'asking' as const, askExpiresAt: asked, account: 'key-1' }
            : { outcome: 'pending' as const }),
          detail: text,
          impact: i === 1 ? null : 61.5,
          price: i === 2 ? null : '0.00000123',
          exitPlan: i % 2 === 0 ? ({ take_profit_pct: 3, note: text } as never) : null,
          decidedAt: decided,
          signalPublishedAt: i === 3 ? null : new Date(decided.getTime() - 1234),
        };
      }),
    );
    const claimed = await repo.claimDecisions(input);
    expect(claimed.size).toBe(awkward.length);
    for (const [i, row] of input.entries()) {
      const returned = claimed.get(row.ruleId);
      const [stored] = await database.db
        .select()
        .from(ruleDecisions)
        .where(eq(ruleDecisions.ruleId, row.ruleId));
      // What the insert answers is what a typed select reads.
      expect(returned).toEqual(stored);
      expect(stored).toMatchObject({
        ruleName: awkward[i],
        detail: awkward[i],
        signalId: 9_007_199_254_740 + i,
        outcome: i === 0 ? 'asking' : 'pending',
        account: i === 0 ? 'key-1' : 'paper',
        accountMode: 'paper',
        impact: i === 1 ? null : 61.5,
        price: i === 2 ? null : '0.00000123',
        exitPlan: i % 2 === 0 ? { take_profit_pct: 3, note: awkward[i] } : null,
        reason: null,
      });
      expect(stored?.decidedAt.getTime()).toBe(decided.getTime());
      expect(stored?.askExpiresAt?.getTime()).toBe(i === 0 ? asked.getTime() : undefined);
      expect(stored?.signalPublishedAt?.getTime()).toBe(i === 3 ? undefined : decided.getTime() - 1234);
    }
    // Claimed again, nothing is new: the (rule, signal) key holds.
    expect((await repo.claimDecisions(input)).size).toBe(0);
  });

  it('of thirty first uses of one key at once, one is first; thirty users’ keys are each first', async () => {
    const before = { ...batchStats };
    const repo = new IdempotencyRepo(database.db);
    const record = { requestHash: 'h', clientOrderId: 'c', account: 'paper', symbol: 'BTCUSDT' };
    const same = await Promise.all(
      Array.from({ length: 30 }, () => repo.claim(userIds[0]!, 'one-key-0001', record, 'sent')),
    );
    expect(same.filter((c) => c.fresh)).toHaveLength(1);
    // Thirty different requests under one key: the one told it is first is the one whose request is kept.
    const differing = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        repo.claim(userIds[1]!, 'one-key-0002', { ...record, requestHash: `h${i}` }, 'sent'),
      ),
    );
    const firsts = differing.flatMap((c, i) => (c.fresh ? [i] : []));
    expect(firsts).toHaveLength(1);
    expect((await repo.get(userIds[1]!, 'one-key-0002'))?.requestHash).toBe(`h${firsts[0]}`);
    const each = await Promise.all(userIds.map((u) => repo.claim(u, 'own-key-0001', record, 'sent')));
    expect(each.every((c) => c.fresh)).toBe(true);
    await Promise.all(userIds.map((u, i) => repo.markFilled(u, 'own-key-0001', `filled-${i}`)));
    const rows = await database.db
      .select()
      .from(orderRequests)
      .where(eq(orderRequests.idempotencyKey, 'own-key-0001'));
    expect(rows).toHaveLength(30);
    for (const row of rows) {
      expect(row.state).toBe('filled');
      expect(row.orderId).toBe(`filled-${userIds.indexOf(row.userId)}`);
    }
    expect(batchStats.fallbacks).toBe(before.fallbacks);
    expect(batchStats.batches - before.batches).toBe(4);
  });

  it('appends thirty accounts’ fills in one go; a taken sequence number fails that append alone', async () => {
    const before = { ...batchStats };
    const repo = new LedgerRepo(database.db);
    const deposit = { type: 'deposit', amount: '1000', reason: 'initial' } as const;
    const { effects, state } = applyEvent(emptyAccount(), deposit);
    await repo.append(userIds[0]!, 1, deposit, effects, state.cash.toString());
    const answers = await Promise.allSettled(
      userIds.map((u) => repo.append(u, 1, deposit, effects, state.cash.toString())),
    );
    expect(answers[0]?.status).toBe('rejected');
    expect(answers.slice(1).every((a) => a.status === 'fulfilled' && a.value instanceof Date)).toBe(true);
    const rows = await database.db.select().from(paperLedger);
    expect(rows).toHaveLength(30);
    expect(batchStats.fallbacks - before.fallbacks).toBe(1);
  });

  it('books thirty paper fills with their keys in one statement; a fill whose key was taken is not written', async () => {
    const rows = await database.db
      .insert(users)
      .values(Array.from({ length: 30 }, (_, i) => ({ email: `k${i}@example.com`, username: `keyed${i}` })))
      .returning({ id: users.id });
    const accounts = rows.map((r) => r.id);
    const keys = new IdempotencyRepo(database.db);
    const taken = {
      requestHash: 'earlier',
      clientOrderId: 'sc-earlier',
      account: 'paper',
      symbol: 'ETHUSDT',
    };
    expect((await keys.claim(accounts[3]!, 'key-3', taken, 'sent')).fresh).toBe(true);
    const repo = new LedgerRepo(database.db);
    const fillOf = (i: number) =>
      ({
        type: 'fill',
        orderId: `order-${i}`,
        clientOrderId: `sc-${i}`,
        reduceOnly: false,
        symbol: 'BTCUSDT',
        side: 'BUY',
        qty: '0.002',
        price: '100000',
        fee: '0.1',
      }) as const;
    const before = { ...batchStats };
    // Two of them unkeyed (an order placed without a key), in the same statement as the keyed ones.
    const answers = await Promise.all(
      accounts.map((u, i) => {
        const { effects, state } = applyEvent(emptyAccount(), fillOf(i));
        const key =
          i < 2
            ? undefined
            : { userId: u, idempotencyKey: `key-${i}`, requestHash: `h${i}`, account: 'paper' };
        return repo.append(u, 1, fillOf(i), effects, state.cash.toString(), key);
      }),
    );
    expect(batchStats.batches - before.batches).toBe(1);
    expect(batchStats.fallbacks).toBe(before.fallbacks);
    answers.forEach((a, i) => (i === 3 ? expect(a).toBeNull() : expect(a).toBeInstanceOf(Date)));

    const booked = await database.db.select().from(paperLedger);
    const mine = booked.filter((r) => accounts.includes(r.userId));
    expect(mine.map((r) => accounts.indexOf(r.userId)).sort((a, b) => a - b)).toEqual(
      accounts.map((_, i) => i).filter((i) => i !== 3),
    );
    const recorded = await database.db.select().from(orderRequests);
    for (const [i, u] of accounts.entries()) {
      const row = recorded.find((r) => r.userId === u);
      if (i < 2) expect(row).toBeUndefined();
      else if (i === 3) expect(row).toMatchObject({ idempotencyKey: 'key-3', ...taken, state: 'sent' });
      else {
        expect(row).toMatchObject({
          idempotencyKey: `key-${i}`,
          requestHash: `h${i}`,
          clientOrderId: `sc-${i}`,
          account: 'paper',
          symbol: 'BTCUSDT',
          state: 'filled',
          orderId: `order-${i}`,
          error: null,
        });
      }
    }
  });
});
