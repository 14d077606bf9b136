import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../server/db/client';
import { paperLedger, paperSnapshots, users } from '../../server/db/schema';
import { LedgerRepo, type LedgerRow } from '../../server/modules/trading/paper/ledger.repo';
import { PaperExchange } from '../../server/modules/trading/paper/paper-exchange';
import {
  SNAPSHOT_EVERY,
  SNAPSHOTS_KEPT,
  fromSnapshot,
  toSnapshot,
} from '../../server/modules/trading/paper/snapshot';
import { applyEvent, emptyAccount } from '../../server/modules/trading/paper/account';
import type { SnapshotState } from '../../server/modules/trading/paper/snapshot';
import { dbTargets, useDatabase } from '../helpers/db';

/** The real repository, noting which rows each load asked for. */
class RecordingRepo extends LedgerRepo {
  loads: { afterSeq: number; rows: number }[] = [];
  failSnapshots = false;
  override async load(userId: string, afterSeq = 0): Promise<LedgerRow[]> {
    const rows = await super.load(userId, afterSeq);
    this.loads.push({ afterSeq, rows: rows.length });
    return rows;
  }
  override async saveSnapshot(userId: string, seq: number, state: SnapshotState, keep: number) {
    if (this.failSnapshots) throw new Error('disk full');
    return super.saveSnapshot(userId, seq, state, keep);
  }
}

describe.each(dbTargets())('paper ledger snapshots on %s', (name) => {
  const target = useDatabase(name);
  let database: Database;
  const marks = new Map<string, number>([
    ['BTCUSDT', 60_000],
    ['ETHUSDT', 3_000],
  ]);
  const exchange = (repo: LedgerRepo, opts: Partial<ConstructorParameters<typeof PaperExchange>[0]> = {}) =>
    new PaperExchange({ repo, marks: { price: (s) => marks.get(s) }, slippageBps: 0, ...opts });

  async function newUser(name: string): Promise<string> {
    const [row] = await database.db
      .insert(users)
      .values({ email: `${name}@example.com`, username: name })
      .returning({ id: users.id });
    return row!.id;
  }

  /** `count` ledger rows in all: the opening deposit, then orders both ways, a leverage change now and then. */
  async function trade(ex: PaperExchange, user: string, count: number, tag: string) {
    await ex.balance(user);
    for (let i = 1; i < count; i++) {
      if (i % 17 === 0) {
        await ex.setLeverage(user, 'ETHUSDT', Math.min(10 + Math.floor(i / 17), 50));
        continue;
      }
      marks.set('ETHUSDT', 3_000 + ((i * 37) % 101));
      await ex.placeMarketOrder(user, {
        symbol: i % 3 === 0 ? 'BTCUSDT' : 'ETHUSDT',
        side: i % 2 === 0 ? 'BUY' : 'SELL',
        quoteAmount: String(150 + (i % 7) * 10),
        newClientOrderId: `${tag}-${i}`,
      });
    }
  }

  const snapshotSeqs = async (user: string) =>
    (
      await database.db
        .select({ seq: paperSnapshots.seq })
        .from(paperSnapshots)
        .where(eq(paperSnapshots.userId, user))
        .orderBy(asc(paperSnapshots.seq))
    ).map((r) => r.seq);

  const view = async (ex: PaperExchange, user: string) => ({
    balance: { ...(await ex.balance(user)), updateTime: 0 },
    positions: (await ex.positionRisk(user)).map((p) => ({ ...p, updateTime: 0 })),
  });

  beforeAll(async () => {
    database = await target.open();
  });
  afterAll(async () => {
    await database.close();
    await target.cleanup();
  });

  it(`snapshots every ${SNAPSHOT_EVERY} rows, keeps the last ${SNAPSHOTS_KEPT}, and loads from the latest`, async () => {
    const user = await newUser('snapper');
    await trade(exchange(new LedgerRepo(database.db)), user, 5 * SNAPSHOT_EVERY + 42, 's');
    expect(await snapshotSeqs(user)).toEqual([300, 400, 500]);

    const repo = new RecordingRepo(database.db);
    const cold = exchange(repo);
    const fromSnapshotView = await view(cold, user);
    expect(repo.loads).toEqual([{ afterSeq: 500, rows: 42 }]);

    const fullRepo = new RecordingRepo(database.db);
    const full = exchange(fullRepo, { snapshotEvery: null });
    expect(await view(full, user)).toEqual(fromSnapshotView);
    expect(fullRepo.loads).toEqual([{ afterSeq: 0, rows: 542 }]);
    expect(fromSnapshotView.positions.length).toBeGreaterThan(0);
  });

  it('each stored snapshot is exactly the replay of the ledger up to its seq', async () => {
    const user = await newUser('checker');
    await trade(exchange(new LedgerRepo(database.db)), user, 3 * SNAPSHOT_EVERY + 1, 'c');
    const rows = await new LedgerRepo(database.db).load(user);
    const stored = await database.db.select().from(paperSnapshots).where(eq(paperSnapshots.userId, user));
    expect(stored.map((s) => s.seq).sort((a, b) => a - b)).toEqual([100, 200, 300]);
    for (const snapshot of stored) {
      const replayed = rows
        .filter((r) => r.seq <= snapshot.seq)
        .reduce((s, r) => applyEvent(s, r.event).state, emptyAccount());
      expect(snapshot.state).toEqual(toSnapshot(replayed));
      expect(fromSnapshot(snapshot.state)).toEqual(replayed);
    }
  });

  it('a ledger written before snapshots gets one on its first load', async () => {
    const user = await newUser('veteran');
    await trade(exchange(new LedgerRepo(database.db), { snapshotEvery: null }), user, 250, 'v');
    expect(await snapshotSeqs(user)).toEqual([]);
    const before = await view(exchange(new LedgerRepo(database.db), { snapshotEvery: null }), user);
    expect(await view(exchange(new LedgerRepo(database.db)), user)).toEqual(before);
    expect(await snapshotSeqs(user)).toEqual([250]);
    const repo = new RecordingRepo(database.db);
    expect(await view(exchange(repo), user)).toEqual(before);
    expect(repo.loads).toEqual([{ afterSeq: 250, rows: 0 }]);
  });

  it('an unreadable snapshot is stepped over: the whole ledger is replayed', async () => {
    const user = await newUser('garbled');
    await trade(exchange(new LedgerRepo(database.db)), user, 120, 'g');
    const truth = await view(exchange(new LedgerRepo(database.db), { snapshotEvery: null }), user);
    await database.db
      .update(paperSnapshots)
      .set({ state: { v: 99 } as unknown as SnapshotState })
      .where(and(eq(paperSnapshots.userId, user), eq(paperSnapshots.seq, 100)));
    const repo = new RecordingRepo(database.db);
    expect(await view(exchange(repo), user)).toEqual(truth);
    expect(repo.loads[0]).toEqual({ afterSeq: 0, rows: 120 });
  });

  it('a snapshot that cannot be written fails nothing: the order is booked and the error reported', async () => {
    const user = await newUser('unlucky');
    const repo = new RecordingRepo(database.db);
    repo.failSnapshots = true;
    const errors: unknown[] = [];
    await trade(exchange(repo, { onSnapshotError: (_, err) => errors.push(err) }), user, 101, 'u');
    expect(errors).toHaveLength(1);
    expect(await snapshotSeqs(user)).toEqual([]);
    const rows = await database.db.select().from(paperLedger).where(eq(paperLedger.userId, user));
    expect(rows).toHaveLength(101);
  });
});
