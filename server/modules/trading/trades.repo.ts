import { and, desc, eq, isNull, lt } from 'drizzle-orm';
import type { CloseReason, Trade, TradeSource } from '../../../src/contracts/trading';
import { Batcher, insertRows } from '../../db/batch';
import type { Db } from '../../db/client';
import { trades } from '../../db/schema/trading';

/** A fill to record: the answer's figures and where and by what it was placed. */
export interface NewTrade {
  account: string;
  accountMode: 'paper' | 'demo' | 'live';
  venue: 'paper' | 'binance' | 'bybit' | 'okx';
  keyHint: string | null;
  orderId: string;
  symbol: string;
  side: 'buy' | 'sell';
  quantity: number;
  price: number;
  /** Null while the venue has not told them. */
  realizedPnl: number | null;
  fee: number | null;
  source: TradeSource;
  ruleId: string | null;
  ruleName: string | null;
  /** Why a closing fill was sent; null for one by hand and for an opening fill. */
  reason: CloseReason | null;
}

/** A fill of the history with why it was sent: what the Closed tab is worked out from. */
export type HistoryFill = Trade & { reason: CloseReason | null };

/** SQL for the trade history; one user's rows only, always. */
export class TradesRepo {
  /** The fills of one headline's orders go in one insert. */
  private readonly records = new Batcher<typeof trades.$inferInsert, void>(async (rows) => {
    await this.db.execute(
      insertRows(trades, rows, { onConflictDoNothing: [trades.userId, trades.account, trades.orderId] }),
    );
    return rows.map(() => undefined);
  });

  constructor(private readonly db: Db) {}

  /** Records a fill once: the same order answered again (a retry) adds nothing. */
  async record(userId: string, fill: NewTrade): Promise<void> {
    await this.records.add({
      userId,
      ...fill,
      quantity: String(fill.quantity),
      price: String(fill.price),
      realizedPnl: fill.realizedPnl === null ? null : String(fill.realizedPnl),
      fee: fill.fee === null ? null : String(fill.fee),
    });
  }

  /** Fills in the fee and realised PnL of a recorded fill that had them unknown (a known figure stays). */
  async fillFees(
    userId: string,
    account: string,
    orderId: string,
    fees: { fee: number; realizedPnl: number },
  ): Promise<void> {
    await this.db
      .update(trades)
      .set({ fee: String(fees.fee), realizedPnl: String(fees.realizedPnl) })
      .where(
        and(
          eq(trades.userId, userId),
          eq(trades.account, account),
          eq(trades.orderId, orderId),
          isNull(trades.fee),
        ),
      );
  }

  /** Newest first: up to `limit` fills older than row `before`, of one account when `account` is given. */
  async page(userId: string, opts: { before?: number; limit: number; account?: string }): Promise<Trade[]> {
    const rows = await this.db
      .select()
      .from(trades)
      .where(
        and(
          eq(trades.userId, userId),
          opts.before === undefined ? undefined : lt(trades.id, opts.before),
          opts.account === undefined ? undefined : eq(trades.account, opts.account),
        ),
      )
      .orderBy(desc(trades.id))
      .limit(opts.limit);
    return rows.map(tradeOfRow);
  }

  /** The newest `limit` fills of the user (of one account when given), oldest first, with their reasons. */
  async history(userId: string, opts: { account?: string; limit: number }): Promise<HistoryFill[]> {
    const rows = await this.db
      .select()
      .from(trades)
      .where(
        and(
          eq(trades.userId, userId),
          opts.account === undefined ? undefined : eq(trades.account, opts.account),
        ),
      )
      .orderBy(desc(trades.id))
      .limit(opts.limit);
    return rows.reverse().map((r) => ({ ...tradeOfRow(r), reason: r.reason }));
  }
}

function tradeOfRow(r: typeof trades.$inferSelect): Trade {
  return {
    id: String(r.id),
    time: r.createdAt.getTime(),
    symbol: r.symbol,
    side: r.side,
    quantity: Number(r.quantity),
    price: Number(r.price),
    realizedPnl: r.realizedPnl === null ? null : Number(r.realizedPnl),
    fee: r.fee === null ? null : Number(r.fee),
    accountId: r.account,
    account: {
      venue: r.venue ?? (r.accountMode === 'paper' ? 'paper' : 'binance'),
      mode: r.accountMode,
      keyHint: r.keyHint,
    },
    source: r.source,
    ruleId: r.ruleId,
    ruleName: r.ruleName,
    orderId: r.orderId,
  };
}
