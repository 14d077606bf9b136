import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../server/db/client';
import { paperLedger, paperSnapshots, users } from '../../server/db/schema';
import {
  applyEvent,
  emptyAccount,
  type EventEffects,
  type LedgerEvent,
} from '../../server/modules/trading/paper/account';
import type { KeyClaim } from '../../server/modules/trading/exchange';
import { LedgerRepo } from '../../server/modules/trading/paper/ledger.repo';
import { MAX_ATTEMPTS, PaperExchange } from '../../server/modules/trading/paper/paper-exchange';
import { toSnapshot } from '../../server/modules/trading/paper/snapshot';
import { dbTargets, useDatabase } from '../helpers/db';

/** A repository whose appends always lose the race, as when another process is always first. */
class AlwaysBeatenRepo extends LedgerRepo {
  appends = 0;
  override async append(
    userId: string,
    seq: number,
    event: LedgerEvent,
    effects: EventEffects,
    cashAfter: string,
    key?: KeyClaim,
  ): Promise<Date | null> {
    if (event.type === 'deposit') return super.append(userId, seq, event, effects, cashAfter, key);
    this.appends += 1;
    throw Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' });
  }
}

/** The real repository, except that another process appends first, `turns` times, whenever a fill is written. */
class RivalFirstRepo extends LedgerRepo {
  rival?: PaperExchange;
  turns = 3;
  override async append(
    userId: string,
    seq: number,
    event: LedgerEvent,
    effects: EventEffects,
    cashAfter: string,
    key?: KeyClaim,
  ): Promise<Date | null> {
    if (event.type === 'fill' && this.turns > 0) {
      this.turns -= 1;
      await this.rival!.setLeverage(userId, event.symbol, 20 - this.turns);
    }
    return super.append(userId, seq, event, effects, cashAfter, key);
  }
}

/** The real repository, counting the appends another process had already taken the seq of. */
class ConflictCountingRepo extends LedgerRepo {
  conflicts = 0;
  override async append(
    userId: string,
    seq: number,
    event: LedgerEvent,
    effects: EventEffects,
    cashAfter: string,
    key?: KeyClaim,
  ): Promise<Date | null> {
    try {
      return await super.append(userId, seq, event, effects, cashAfter, key);
    } catch (err) {
      if ((err as { cause?: { code?: string } }).cause?.code === '23505') this.conflicts += 1;
      throw err;
    }
  }
}

/**
 * Several server processes over one database, each with its own cache of the account: modelled here by
 * PaperExchange instances sharing the database (on PostgreSQL through a pool of 4 connections, so their
 * statements really run at the same time).
 */
describe.each(dbTargets())('paper exchanges of several processes on one account, on %s', (name) => {
  const target = useDatabase(name);
  let database: Database;
  const marks = new Map<string, number>([
    ['BTCUSDT', 60_000],
    ['ETHUSDT', 3_000],
  ]);
  const exchange = (repo = new LedgerRepo(database.db), snapshotEvery?: number | null) =>
    new PaperExchange({ repo, marks: { price: (s) => marks.get(s) }, slippageBps: 0, snapshotEvery });

  async function newUser(name: string): Promise<string> {
    const [row] = await database.db
      .insert(users)
      .values({ email: `${name}@example.com`, username: name })
      .returning({ id: users.id });
    return row!.id;
  }

  beforeAll(async () => {
    database = await target.open();
  });
  afterAll(async () => {
    await database.close();
    await target.cleanup();
  });

  it('fills every order exactly once, with contiguous seqs and the cash a fresh replay gives', async () => {
    const user = await newUser('contended');
    const repos = [new ConflictCountingRepo(database.db), new ConflictCountingRepo(database.db)];
    const processes = repos.map((repo) => exchange(repo, 25));
    // Both hold the account as it opened (seq 1): whichever appends second meets the first's row, so at
    // least one collision happens however the two bursts below interleave.
    for (const ex of processes) await ex.balance(user);
    const perProcess = 40;
    const orders = processes.flatMap((ex, p) =>
      Array.from({ length: perProcess }, (_, i) =>
        ex.placeMarketOrder(user, {
          symbol: i % 3 === 0 ? 'BTCUSDT' : 'ETHUSDT',
          side: (i + p) % 2 === 0 ? 'BUY' : 'SELL',
          quoteAmount: String(100 + i),
          newClientOrderId: `p${p}-${i}`,
        }),
      ),
    );
    const results = await Promise.allSettled(orders);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    // The processes did collide: each collision is an attempt replayed.
    expect(repos.map((r) => r.conflicts).reduce((a, b) => a + b)).toBeGreaterThan(0);

    const rows = await database.db
      .select()
      .from(paperLedger)
      .where(eq(paperLedger.userId, user))
      .orderBy(asc(paperLedger.seq));
    const total = processes.length * perProcess;
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: total + 1 }, (_, i) => i + 1));
    expect(rows.filter((r) => r.type === 'deposit')).toHaveLength(1);
    const ids = rows.flatMap((r) => (r.clientOrderId ? [r.clientOrderId] : []));
    expect(ids.sort()).toEqual(
      processes.flatMap((_, p) => Array.from({ length: perProcess }, (__, i) => `p${p}-${i}`)).sort(),
    );
    // Each answer is the fill the ledger holds for its id.
    for (const r of results) {
      if (r.status !== 'fulfilled') continue;
      const row = rows.find((x) => x.clientOrderId === r.value.clientOrderId);
      expect(row?.event).toMatchObject({ orderId: r.value.orderId, qty: r.value.executedQty });
    }

    // Every row's cash_after is what replaying the ledger up to it gives, and so is the fresh account.
    let state = emptyAccount();
    for (const row of rows) {
      state = applyEvent(state, row.event).state;
      expect(row.cashAfter).toBe(state.cash.toString());
    }
    const fresh = await exchange(undefined, null).balance(user);
    expect(fresh.availableBalance).toBe(state.cash.toFixed(8));
    for (const ex of processes) {
      ex.invalidate(user);
      expect(await ex.balance(user)).toEqual({ ...fresh, updateTime: expect.any(Number) });
    }

    // Snapshots written by either process hold the state of the ledger at their seq.
    const snapshots = await database.db.select().from(paperSnapshots).where(eq(paperSnapshots.userId, user));
    expect(snapshots.map((s) => s.seq).sort((a, b) => a - b)).toEqual([25, 50, 75]);
    for (const snapshot of snapshots) {
      const upTo = rows
        .filter((r) => r.seq <= snapshot.seq)
        .reduce((s, r) => applyEvent(s, r.event).state, emptyAccount());
      expect(snapshot.state).toEqual(toSnapshot(upTo));
    }
  });

  it('one client order id sent through two processes at once fills once; the other is told it is a duplicate', async () => {
    const user = await newUser('twice');
    const [a, b] = [exchange(), exchange()];
    await Promise.all([a.balance(user), b.balance(user)]);
    const request = { symbol: 'ETHUSDT', side: 'BUY' as const, quoteAmount: '300', newClientOrderId: 'same' };
    const results = await Promise.allSettled([
      a.placeMarketOrder(user, request),
      b.placeMarketOrder(user, request),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = results.find((r) => r.status === 'rejected');
    expect(refused?.reason).toMatchObject({ code: -4116 });
    const fills = await database.db.select().from(paperLedger).where(eq(paperLedger.userId, user));
    expect(fills.filter((r) => r.clientOrderId === 'same')).toHaveLength(1);
  });

  it('an order beaten to its seq three times in a row is planned again on the fresh ledger each time, and fills', async () => {
    const user = await newUser('outrun');
    const repo = new RivalFirstRepo(database.db);
    const ex = exchange(repo);
    repo.rival = exchange();
    await ex.balance(user);
    const result = await ex.placeMarketOrder(user, {
      symbol: 'BTCUSDT',
      side: 'BUY',
      quoteAmount: '1000',
      newClientOrderId: 'late',
    });
    expect(result.status).toBe('FILLED');
    const rows = await database.db
      .select()
      .from(paperLedger)
      .where(eq(paperLedger.userId, user))
      .orderBy(asc(paperLedger.seq));
    expect(rows.map((r) => [r.seq, r.type])).toEqual([
      [1, 'deposit'],
      [2, 'leverage'],
      [3, 'leverage'],
      [4, 'leverage'],
      [5, 'fill'],
    ]);
    // Planned on the state after the rival's last change: the position opened at its leverage.
    const [position] = await ex.positionRisk(user);
    expect(position?.leverage).toBe(20);
    const fill = rows[4]!;
    const { qty, price } = fill.event as Extract<LedgerEvent, { type: 'fill' }>;
    expect(Number(fill.marginDelta)).toBeCloseTo((Number(qty) * Number(price)) / 20, 8);
  });

  it(`gives up after ${MAX_ATTEMPTS} attempts when every one loses the race`, async () => {
    const user = await newUser('beaten');
    const repo = new AlwaysBeatenRepo(database.db);
    const ex = new PaperExchange({
      repo,
      marks: { price: (s) => marks.get(s) },
      sleep: async () => {},
    });
    await expect(
      ex.placeMarketOrder(user, {
        symbol: 'ETHUSDT',
        side: 'BUY',
        quoteAmount: '300',
        newClientOrderId: 'x',
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(repo.appends).toBe(MAX_ATTEMPTS);
  });
});
