import Decimal from 'decimal.js';
import type { z } from 'zod';
import type { AccountUpdateEvent, ExchangeEvent, OrderTradeUpdateEvent } from '../../exchange';
import type { OrderFees } from '../binance-shapes';
import { OrderRow, StreamExecution, StreamPosition, type BybitOrder } from './answers';
import { isLeg, legOf, sideOf } from './shapes';

type Execution = z.output<typeof StreamExecution>;

/** Executions that change a position (a funding payment or a settlement moves no contracts). */
const FILLS: ReadonlySet<string> = new Set(['Trade', 'BustTrade', 'AdlTrade', 'BlockTrade', 'MovePosition']);

/** What one push of the private stream comes to: our events, the fills seen, the rows dropped. */
export interface Translated {
  events: ExchangeEvent[];
  fills: Execution[];
  /** Rows of a topic the adapter reads that could not be read (the topic's name, once per row). */
  dropped: string[];
}

/**
 * One push of Bybit's private stream (`order`, `execution`, `position`) in Binance's event shapes:
 * - each linear fill of `execution` is an ORDER_TRADE_UPDATE (its fee and gross PnL: `execPnl`; `z` is
 *   what the order executed so far, its quantity less what is left; `R` says it closed something);
 * - the linear rows of `position` are one ACCOUNT_UPDATE (the amount signed, a short negative);
 * - an `order` row that is one of a position's legs (its stop, target or trailing stop) is an
 *   ALGO_UPDATE without a client id (Bybit keeps none on them); other orders are told by their fills.
 * Rows of other categories are not ours; a row that cannot be read is dropped and named.
 */
export function translatePush(topic: string, rows: readonly unknown[], at: number): Translated {
  const out: Translated = { events: [], fills: [], dropped: [] };
  const base = topic.split('.')[0];
  const linear = rows.filter((r) => (r as { category?: unknown }).category === 'linear');
  if (base === 'execution') {
    for (const row of linear) {
      const parsed = StreamExecution.safeParse(row);
      if (!parsed.success) out.dropped.push(topic);
      else if (FILLS.has(parsed.data.execType)) {
        out.fills.push(parsed.data);
        out.events.push(tradeUpdateOf(parsed.data, at));
      }
    }
  } else if (base === 'position') {
    const positions: AccountUpdateEvent['a']['P'] = [];
    for (const row of linear) {
      const parsed = StreamPosition.safeParse(row);
      if (!parsed.success) {
        out.dropped.push(topic);
        continue;
      }
      const p = parsed.data;
      positions.push({
        s: p.symbol,
        pa: (p.side === 'Sell' ? new Decimal(p.size).neg() : new Decimal(p.size)).toFixed(),
        ep: p.entryPrice,
        bep: p.breakEvenPrice,
        cr: '0',
        up: p.unrealisedPnl,
        mt: 'isolated',
        iw: p.positionIM,
        ps: 'BOTH',
      });
    }
    if (positions.length > 0) {
      out.events.push({ e: 'ACCOUNT_UPDATE', E: at, T: at, a: { m: 'ORDER', B: [], P: positions } });
    }
  } else if (base === 'order') {
    for (const row of linear) {
      const parsed = OrderRow.safeParse(row);
      if (!parsed.success) {
        out.dropped.push(topic);
        continue;
      }
      const order: BybitOrder = parsed.data;
      const leg = isLeg(order) ? legOf(order, '') : null;
      if (leg !== null)
        out.events.push({ e: 'ALGO_UPDATE', E: at, T: leg.updateTime, order: leg, reason: null });
    }
  }
  return out;
}

function tradeUpdateOf(x: Execution, at: number): OrderTradeUpdateEvent {
  const done = Decimal.max(new Decimal(x.orderQty).minus(x.leavesQty), x.execQty);
  return {
    e: 'ORDER_TRADE_UPDATE',
    E: at,
    T: x.execTime,
    o: {
      s: x.symbol,
      c: x.orderLinkId,
      S: sideOf(x.side),
      o: x.execType === 'BustTrade' ? 'LIQUIDATION' : 'MARKET',
      q: x.orderQty,
      ap: x.execPrice,
      x: 'TRADE',
      X: 'FILLED',
      i: x.orderId,
      l: x.execQty,
      z: done.toFixed(),
      L: x.execPrice,
      n: x.execFee,
      N: 'USDT',
      rp: x.execPnl ?? null,
      R: new Decimal(x.closedSize).gt(0),
    },
  };
}

/** How long an order's streamed fills are kept for a later look-up, and how many orders at most. */
const KEEP_MS = 15 * 60_000;
const KEEP_MAX = 10_000;

interface Seen {
  at: number;
  qty: Decimal;
  fee: Decimal;
  /** Null once a fill came without its execPnl: the sum is then not known. */
  pnl: Decimal | null;
  /** A fill charged in another coin: its fee is not a USDT figure. */
  foreign: boolean;
}

/**
 * Each order's fills as the private stream reports them, summed: the fee and gross realised PnL of an
 * order whose fills could not be read over REST, once the streamed ones add up to all it executed.
 */
export class BybitStreamFees {
  private readonly orders = new Map<string, Seen>();

  constructor(private readonly now: () => number) {}

  add(account: string, fill: Execution): void {
    const qty = new Decimal(fill.execQty);
    if (!qty.gt(0)) return;
    this.prune();
    const key = `${account}|${fill.orderId}`;
    const seen = this.orders.get(key) ?? {
      at: this.now(),
      qty: new Decimal(0),
      fee: new Decimal(0),
      pnl: new Decimal(0),
      foreign: false,
    };
    this.orders.set(key, {
      at: seen.at,
      qty: seen.qty.plus(qty),
      fee: seen.fee.plus(fill.execFee),
      pnl: seen.pnl === null || fill.execPnl == null ? null : seen.pnl.plus(fill.execPnl),
      foreign: seen.foreign || (fill.feeCurrency !== '' && fill.feeCurrency !== 'USDT'),
    });
  }

  of(account: string, orderId: string, executedQty: string): OrderFees | null {
    const seen = this.orders.get(`${account}|${orderId}`);
    if (seen === undefined || seen.foreign || seen.pnl === null || !seen.qty.eq(executedQty)) return null;
    return { commission: seen.fee.toFixed(), realizedPnl: seen.pnl.toFixed() };
  }

  private prune(): void {
    const oldest = this.now() - KEEP_MS;
    for (const [key, seen] of this.orders) {
      if (seen.at >= oldest && this.orders.size < KEEP_MAX) break;
      this.orders.delete(key);
    }
  }
}
