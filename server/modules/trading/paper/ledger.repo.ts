import { and, asc, desc, eq, gt, lt, sql, type SQL } from 'drizzle-orm';
import { arrayOf, Batcher, insertRows, rowsOf } from '../../../db/batch';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Db } from '../../../db/client';
import { orderRequests, paperLedger, paperSnapshots } from '../../../db/schema/trading';
import type { KeyClaim } from '../exchange';
import type { EventEffects, LedgerEvent } from './account';
import type { SnapshotState } from './snapshot';

export interface LedgerRow {
  seq: number;
  event: LedgerEvent;
  createdAt: Date;
  realizedPnl: string;
}

/** SQL for the paper ledger (and the Idempotency-Keys its fills take with them); nothing else. */
export class LedgerRepo {
  /**
   * The fills of one headline's orders, one per account, go in one insert; the Idempotency-Keys of the
   * keyed ones are taken in the same statement (a fill whose key was taken already is not written).
   */
  private readonly appendBatch = new Batcher<Append, Date | null>(async (items) => {
    const rows = items.map((i) => i.row);
    const keys = items.flatMap((i) => (i.key === undefined ? [] : [i.key]));
    const returning = [paperLedger.userId, paperLedger.seq, paperLedger.createdAt];
    const statement =
      keys.length === 0 ? insertRows(paperLedger, rows, { returning }) : withKeys(rows, keys, returning);
    const created = rowsOf(paperLedger, await this.db.execute(statement));
    const at = new Map(created.map((r) => [`${r.userId} ${r.seq}`, r.createdAt]));
    return items.map(({ row, key }) => {
      const createdAt = at.get(`${row.userId} ${row.seq}`);
      if (createdAt !== undefined && createdAt !== null) return createdAt;
      if (key !== undefined) return null;
      throw new Error('ledger insert returned nothing');
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

  /**
   * Appends the event as row `seq` of the account; answers when the row was written. With `key` (a
   * fill's), the Idempotency-Key is taken in the same statement, recorded filled by this fill: null
   * when it was taken already, and then nothing was written.
   */
  append(
    userId: string,
    seq: number,
    event: LedgerEvent,
    effects: EventEffects,
    cashAfter: string,
    key?: KeyClaim,
  ): Promise<Date | null> {
    const row = {
      userId,
      seq,
      type: event.type,
      event,
      clientOrderId: event.type === 'fill' ? event.clientOrderId : null,
      symbol: symbolOf(event),
      cashDelta: effects.cashDelta.toString(),
      realizedPnl: effects.realizedPnl.toString(),
      fee: effects.fee.toString(),
      marginDelta: effects.marginDelta.toString(),
      cashAfter,
    };
    if (key === undefined || event.type !== 'fill') return this.appendBatch.add({ row });
    return this.appendBatch.add({
      row,
      key: {
        userId: key.userId,
        idempotencyKey: key.idempotencyKey,
        requestHash: key.requestHash,
        clientOrderId: event.clientOrderId,
        account: key.account,
        symbol: event.symbol,
        state: 'filled',
        orderId: event.orderId,
        // In milliseconds, as every other state change of a key is written (see IdempotencyRepo.claim).
        updatedAt: new Date(),
      },
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

function symbolOf(event: LedgerEvent): string | null {
  switch (event.type) {
    case 'deposit':
      return null;
    case 'conditional':
    case 'limit':
      return event.order.symbol;
    default:
      return event.symbol;
  }
}

interface Append {
  row: typeof paperLedger.$inferInsert;
  key?: typeof orderRequests.$inferInsert;
}

/**
 * `with claimed as (insert the keys …) insert the ledger rows …`: a keyed row goes in only when its key
 * went in (a key already taken keeps its fill out), in one statement, so that a key is never recorded
 * without its fill nor a fill without its key.
 */
function withKeys(
  rows: readonly (typeof paperLedger.$inferInsert)[],
  keys: readonly (typeof orderRequests.$inferInsert)[],
  returning: readonly PgColumn[],
): SQL {
  const claims = insertRows(orderRequests, keys, {
    onConflictDoNothing: [orderRequests.userId, orderRequests.idempotencyKey],
    returning: [orderRequests.userId, orderRequests.clientOrderId],
  });
  // A row is keyed when its client id is one of the keys' (client ids are unique per account, and a
  // key's is derived from its user and key, so in practice another account's never equals it).
  const keyedOrders = arrayOf(
    'text',
    keys.map((k) => k.clientOrderId),
  );
  const ledger = insertRows(paperLedger, rows, {
    rowsWhere: sql`"row"."client_order_id" is null or "row"."client_order_id" <> all(${keyedOrders}) or ("row"."user_id", "row"."client_order_id") in (select "user_id", "client_order_id" from claimed)`,
    returning,
  });
  return sql`with claimed as (${claims}) ${ledger}`;
}
