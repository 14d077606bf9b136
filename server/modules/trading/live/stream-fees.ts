import Decimal from 'decimal.js';
import { z } from 'zod';
import type { OrderFees } from './binance-shapes';
import { decimalText } from './binance-answers';

/**
 * ORDER_TRADE_UPDATE as Binance streams it, the parts that tell one trade's fee: the order id, the
 * execution type, the quantity of this trade, its commission (left out when none was charged) in its
 * asset, and its realised profit.
 */
const TradeUpdate = z.object({
  e: z.literal('ORDER_TRADE_UPDATE'),
  o: z.object({
    i: z.union([z.number().int(), z.string().regex(/^\d+$/)]),
    x: z.string(),
    l: decimalText,
    n: decimalText.default('0'),
    N: z.string().optional(),
    rp: decimalText.default('0'),
  }),
});

/** How long an order's streamed trades are kept for a later look-up, and how many orders at most. */
const KEEP_MS = 15 * 60_000;
const KEEP_MAX = 10_000;

interface Seen {
  at: number;
  qty: Decimal;
  commission: Decimal;
  realizedPnl: Decimal;
  /** A trade charged in another asset (BNB): its fee is not a USDT figure. */
  foreign: boolean;
}

/**
 * Each order's trades as the user-data stream reports them, summed: the fee and realised PnL of an
 * order whose trades could not be read over REST, once the streamed trades add up to all it executed.
 */
export class StreamFees {
  private readonly orders = new Map<string, Seen>();

  constructor(private readonly now: () => number) {}

  /** One stream event (anything but a trade is ignored, and so is an event that cannot be read). */
  add(account: string, event: unknown): void {
    const parsed = TradeUpdate.safeParse(event);
    if (!parsed.success || parsed.data.o.x !== 'TRADE') return;
    const o = parsed.data.o;
    const qty = new Decimal(o.l);
    if (!qty.gt(0)) return;
    this.prune();
    const key = `${account}|${String(o.i)}`;
    const seen = this.orders.get(key) ?? {
      at: this.now(),
      qty: new Decimal(0),
      commission: new Decimal(0),
      realizedPnl: new Decimal(0),
      foreign: false,
    };
    this.orders.set(key, {
      at: seen.at,
      qty: seen.qty.plus(qty),
      commission: seen.commission.plus(o.n),
      realizedPnl: seen.realizedPnl.plus(o.rp),
      foreign: seen.foreign || (o.N !== undefined && o.N !== 'USDT'),
    });
  }

  /** The order's fee and realised PnL when its streamed trades cover `executedQty`; null otherwise. */
  of(account: string, orderId: string, executedQty: string): OrderFees | null {
    const seen = this.orders.get(`${account}|${orderId}`);
    if (seen === undefined || seen.foreign || !seen.qty.eq(executedQty)) return null;
    return { commission: seen.commission.toFixed(), realizedPnl: seen.realizedPnl.toFixed() };
  }

  private prune(): void {
    const oldest = this.now() - KEEP_MS;
    for (const [key, seen] of this.orders) {
      if (seen.at >= oldest && this.orders.size < KEEP_MAX) break;
      this.orders.delete(key);
    }
  }
}
