import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { paperLedger } from '../../../db/schema/trading';
import type { EventEffects, LedgerEvent } from './account';

export interface LedgerRow {
  seq: number;
  event: LedgerEvent;
  createdAt: Date;
  realizedPnl: string;
}

/** SQL for the paper ledger; nothing else. */
export class LedgerRepo {
  constructor(private readonly db: Db) {}

  async load(userId: string): Promise<LedgerRow[]> {
    return this.db
      .select({
        seq: paperLedger.seq,
        event: paperLedger.event,
        createdAt: paperLedger.createdAt,
        realizedPnl: paperLedger.realizedPnl,
      })
      .from(paperLedger)
      .where(eq(paperLedger.userId, userId))
      .orderBy(asc(paperLedger.seq));
  }

  async append(
    userId: string,
    seq: number,
    event: LedgerEvent,
    effects: EventEffects,
    cashAfter: string,
  ): Promise<Date> {
    const [row] = await this.db
      .insert(paperLedger)
      .values({
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
      })
      .returning({ createdAt: paperLedger.createdAt });
    if (!row) throw new Error('ledger insert returned nothing');
    return row.createdAt;
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

  /** Every account that has a ledger, so that open positions are watched again after a restart. */
  async accounts(): Promise<string[]> {
    const rows = await this.db.selectDistinct({ userId: paperLedger.userId }).from(paperLedger);
    return rows.map((r) => r.userId);
  }
}
