import { and, asc, desc, eq, gt, lt, sql } from 'drizzle-orm';
import { Batcher, insertRows, rowsOf } from '../../../db/batch';
import type { Db } from '../../../db/client';
import { paperLedger, paperSnapshots } from '../../../db/schema/trading';
import type { EventEffects, LedgerEvent } from './account';
import type { SnapshotState } from './snapshot';

export interface LedgerRow {
  seq: number;
  event: LedgerEvent;
  createdAt: Date;
  realizedPnl: string;
}

/** SQL for the paper ledger; nothing else. */
export class LedgerRepo {
  /** The fills of one headline's orders, one per account, go in one insert. */
  private readonly appendBatch = new Batcher<typeof paperLedger.$inferInsert, Date>(async (rows) => {
    const created = rowsOf(
      paperLedger,
      await this.db.execute(
        insertRows(paperLedger, rows, {
          returning: [paperLedger.userId, paperLedger.seq, paperLedger.createdAt],
        }),
      ),
    );
    const at = new Map(created.map((r) => [`${r.userId} ${r.seq}`, r.createdAt]));
    return rows.map((r) => {
      const createdAt = at.get(`${r.userId} ${r.seq}`);
      if (createdAt === undefined || createdAt === null) throw new Error('ledger insert returned nothing');
      return createdAt;
    });
  });

  constructor(private readonly db: Db) {}

  /** The account's rows after `afterSeq` (all of them by default), in ledger order. */
  async load(userId: string, afterSeq = 0): Promise<LedgerRow[]> {
    return this.db
      .select({
        seq: paperLedger.seq,
        event: paperLedger.event,
        createdAt: paperLedger.createdAt,
        realizedPnl: paperLedger.realizedPnl,
      })
      .from(paperLedger)
      .where(and(eq(paperLedger.userId, userId), gt(paperLedger.seq, afterSeq)))
      .orderBy(asc(paperLedger.seq));
  }

  async append(
    userId: string,
    seq: number,
    event: LedgerEvent,
    effects: EventEffects,
    cashAfter: string,
  ): Promise<Date> {
    return this.appendBatch.add({
      userId,
      seq,
      type: event.type,
      event,
      clientOrderId: event.type === 'fill' ? event.clientOrderId : null,
      symbol:
        event.type === 'fill' || event.type === 'liquidation' || event.type === 'leverage'
          ? event.symbol
          : null,
      cashDelta: effects.cashDelta.toString(),
      realizedPnl: effects.realizedPnl.toString(),
      fee: effects.fee.toString(),
      marginDelta: effects.marginDelta.toString(),
      cashAfter,
    });
  }

  async findFill(userId: string, clientOrderId: string): Promise<LedgerRow | undefined> {
    const [row] = await this.db
      .select({
        seq: paperLedger.seq,
        event: paperLedger.event,
        createdAt: paperLedger.createdAt,
        realizedPnl: paperLedger.realizedPnl,
      })
      .from(paperLedger)
      .where(and(eq(paperLedger.userId, userId), eq(paperLedger.clientOrderId, clientOrderId)));
    return row;
  }

  async latestSnapshot(userId: string): Promise<{ seq: number; state: SnapshotState } | undefined> {
    const [row] = await this.db
      .select({ seq: paperSnapshots.seq, state: paperSnapshots.state })
      .from(paperSnapshots)
      .where(eq(paperSnapshots.userId, userId))
      .orderBy(desc(paperSnapshots.seq))
      .limit(1);
    return row;
  }

  /**
   * Records the state as of ledger row `seq` (which must be committed) and deletes all but the `keep`
   * latest snapshots of the account. A snapshot already there for that seq is left as it is: only one
   * event can hold a seq, so both describe the same state.
   */
  async saveSnapshot(userId: string, seq: number, state: SnapshotState, keep: number): Promise<void> {
    await this.db.insert(paperSnapshots).values({ userId, seq, state }).onConflictDoNothing();
    const oldestKept = this.db
      .select({ seq: paperSnapshots.seq })
      .from(paperSnapshots)
      .where(eq(paperSnapshots.userId, userId))
      .orderBy(desc(paperSnapshots.seq))
      .offset(keep - 1)
      .limit(1);
    await this.db
      .delete(paperSnapshots)
      .where(and(eq(paperSnapshots.userId, userId), lt(paperSnapshots.seq, sql`(${oldestKept})`)));
  }

  /** Every account that has a ledger, so that open positions are watched again after a restart. */
  async accounts(): Promise<string[]> {
    const rows = await this.db.selectDistinct({ userId: paperLedger.userId }).from(paperLedger);
    return rows.map((r) => r.userId);
  }
}
