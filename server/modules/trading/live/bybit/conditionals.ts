import Decimal from 'decimal.js';
import {
  FIRED_CONDITIONALS,
  type ConditionalOrder,
  type ConditionalOrderRequest,
  type ConditionalType,
  type PositionRisk,
} from '../../exchange';
import { ExchangeError, exchangeErrors, readVenueAnswer } from '../../exchange-error';
import { outcomeOf } from '../unknown-outcome';
import { OrderRow, OrdersPage, type BybitOrder } from './answers';
import type { BybitCall } from './orders';
import { VENUE } from './orders';
import { STOP_ORDER_TYPE, isLeg, legOf, legStatusOf, trailingDistance } from './shapes';

const TRADING_STOP = '/v5/position/trading-stop';
/** Pages of open orders read at most when looking for a position's legs (50 a page). */
const MAX_PAGES = 5;

export interface LegContext {
  /** The account's position on the symbol, read now; undefined when flat. */
  position(account: string, symbol: string): Promise<PositionRisk | undefined>;
  tickSize(symbol: string): Promise<Decimal>;
  /** A price to measure a trailing stop's distance against when there is no position mark. */
  price(symbol: string): Promise<Decimal>;
  /** Looks before the next try at seeing a leg just set (default: 3, 100 ms apart). */
  sleep(ms: number): Promise<void>;
}

/** The leg's kind, without which a slot cannot be found: the caller's bug, not the venue's answer. */
function kindOf(type: ConditionalType | undefined): ConditionalType {
  if (type === undefined) throw new Error("Bybit keeps a position's legs by kind: the leg's type is needed");
  return type;
}

/**
 * The trading-stop parameters of one leg, in Full mode on the one-way position (positionIdx 0): a stop
 * or a target on the mark price (it closes the whole position at market), or a trailing stop as a price
 * distance with its activation price. Bybit's trailing stop also closes the whole position: the
 * request's quantity is not Bybit's to take (the leg follows the position's size by itself).
 */
export async function tradingStopParams(
  r: ConditionalOrderRequest,
  tick: Decimal,
  reference: () => Promise<Decimal>,
): Promise<Record<string, string | number>> {
  const base = { category: 'linear', symbol: r.symbol, tpslMode: 'Full', positionIdx: 0 };
  const onTick = (price: string) => new Decimal(price).toNearest(tick).toFixed();
  if (r.type === 'TRAILING_STOP_MARKET') {
    if (r.callbackRate === undefined) throw new Error('a trailing stop needs its callback rate');
    const from = r.activatePrice === undefined ? await reference() : new Decimal(r.activatePrice);
    return {
      ...base,
      trailingStop: trailingDistance(r.callbackRate, from, tick),
      ...(r.activatePrice === undefined ? {} : { activePrice: onTick(r.activatePrice) }),
    };
  }
  if (r.triggerPrice === undefined) throw new Error(`a ${r.type} needs its trigger price`);
  if (r.quantity !== undefined || r.closePosition === false) {
    throw new Error(`a ${r.type} closes the whole position: no quantity`);
  }
  return r.type === 'STOP_MARKET'
    ? { ...base, stopLoss: onTick(r.triggerPrice), slTriggerBy: 'MarkPrice', slOrderType: 'Market' }
    : { ...base, takeProfit: onTick(r.triggerPrice), tpTriggerBy: 'MarkPrice', tpOrderType: 'Market' };
}

/** The trading-stop parameters that clear one leg's slot (0 cancels it). */
const CLEAR: Record<ConditionalType, Record<string, string>> = {
  STOP_MARKET: { stopLoss: '0' },
  TAKE_PROFIT_MARKET: { takeProfit: '0' },
  TRAILING_STOP_MARKET: { trailingStop: '0' },
};

/**
 * A position's own stop loss, take profit and trailing stop on Bybit (`POST /v5/position/trading-stop`):
 * one slot of each kind per position, holding no client id. Placing a leg sets (or replaces) its slot, so
 * placing the same leg again is safe; the leg is then found among the open orders by its stopOrderType
 * (StopLoss, TakeProfit, TrailingStop), and one that no longer rests in the order history, where a fired
 * leg is Filled and a cancelled one Deactivated.
 */
export class BybitConditionals {
  constructor(
    private readonly call: BybitCall,
    private readonly ctx: LegContext,
    private readonly now: () => number,
  ) {}

  async place(account: string, r: ConditionalOrderRequest): Promise<ConditionalOrder> {
    const [position, tick] = await Promise.all([
      this.ctx.position(account, r.symbol),
      this.ctx.tickSize(r.symbol),
    ]);
    // A SELL leg protects a long: against a short (or the other way) it has nothing to close.
    if (position !== undefined && Number(position.positionAmt) > 0 !== (r.side === 'SELL')) {
      throw exchangeErrors.reduceOnlyRejected();
    }
    const params = await tradingStopParams(r, tick, async () =>
      position === undefined ? this.ctx.price(r.symbol) : new Decimal(position.markPrice),
    );
    try {
      await this.call(account, 'POST', TRADING_STOP, params);
    } catch (err) {
      throw outcomeOf(err);
    }
    for (let n = 0; n < 3; n++) {
      const found = (await this.resting(account, r.symbol, r.type).catch(() => [])).at(0);
      if (found !== undefined) return legOf(found, r.clientAlgoId) ?? this.accepted(r, params);
      await this.ctx.sleep(100);
    }
    return this.accepted(r, params);
  }

  /**
   * The leg of `type` on the symbol: the one resting in its slot, else the latest in the history. A
   * leg that fired closed its whole position: while a position is open now, a fired leg in the history
   * is an earlier position's, not this one's. Null when Bybit holds none.
   */
  async query(
    account: string,
    symbol: string,
    clientAlgoId: string,
    type?: ConditionalType,
  ): Promise<ConditionalOrder | null> {
    const kind = kindOf(type);
    const open = (await this.resting(account, symbol, kind)).at(0);
    if (open !== undefined) return legOf(open, clientAlgoId);
    const [history, position] = await Promise.all([
      this.rows(account, '/v5/order/history', { symbol }, 1),
      this.ctx.position(account, symbol),
    ]);
    const stopOrderType = STOP_ORDER_TYPE[kind];
    const last = history.find(
      (o) =>
        o.stopOrderType === stopOrderType &&
        isLeg(o) &&
        (position === undefined || !FIRED_CONDITIONALS.has(legStatusOf(o))),
    );
    return last === undefined ? null : legOf(last, clientAlgoId);
  }

  /** Clears the leg's slot while it rests; null when nothing of that kind rests (fired, cancelled). */
  async cancel(
    account: string,
    symbol: string,
    clientAlgoId: string,
    type?: ConditionalType,
  ): Promise<ConditionalOrder | null> {
    const kind = kindOf(type);
    const before = (await this.resting(account, symbol, kind)).at(0);
    if (before === undefined) return null;
    try {
      await this.call(account, 'POST', TRADING_STOP, {
        category: 'linear',
        symbol,
        tpslMode: 'Full',
        positionIdx: 0,
        ...CLEAR[kind],
      });
    } catch (err) {
      // Refused: when the slot is empty now (the position closed, the leg fired), nothing rests.
      if (err instanceof ExchangeError && (await this.resting(account, symbol, kind)).length === 0)
        return null;
      throw outcomeOf(err);
    }
    const leg = legOf(before, clientAlgoId);
    return leg === null ? null : { ...leg, status: 'CANCELED', updateTime: this.now() };
  }

  /** Every leg resting now (on one symbol, when given), without a client id. */
  async open(account: string, symbol?: string): Promise<ConditionalOrder[]> {
    const where: Record<string, string> = symbol === undefined ? { settleCoin: 'USDT' } : { symbol };
    const rows = await this.rows(account, '/v5/order/realtime', where, MAX_PAGES);
    return rows.filter((o) => isLeg(o) && o.orderStatus === 'Untriggered').flatMap((o) => legOf(o, '') ?? []);
  }

  /** The untriggered legs of one kind on the symbol (one per position, at most). */
  private async resting(account: string, symbol: string, type: ConditionalType): Promise<BybitOrder[]> {
    const rows = await this.rows(account, '/v5/order/realtime', { symbol }, MAX_PAGES);
    return rows.filter(
      (o) => o.stopOrderType === STOP_ORDER_TYPE[type] && isLeg(o) && o.orderStatus === 'Untriggered',
    );
  }

  /** Orders of every kind, newest first; rows of kinds the adapter does not hold are left unread. */
  private async rows(
    account: string,
    path: string,
    where: Record<string, string>,
    pages: number,
  ): Promise<BybitOrder[]> {
    const out: BybitOrder[] = [];
    let cursor = '';
    for (let n = 0; n < pages; n++) {
      const body = await this.call(account, 'GET', path, {
        category: 'linear',
        ...where,
        limit: 50,
        ...(cursor === '' ? {} : { cursor }),
      });
      const page = readVenueAnswer(OrdersPage, body, "the position's legs", VENUE);
      for (const row of page.list) {
        const kind = (row as { stopOrderType?: unknown }).stopOrderType;
        if (typeof kind === 'string' && kind in LEG_KINDS) {
          out.push(readVenueAnswer(OrderRow, row, "the position's legs", VENUE));
        }
      }
      cursor = page.nextPageCursor;
      if (cursor === '' || page.list.length === 0) break;
    }
    return out;
  }

  /** Bybit set the leg (retCode 0) but its order is not in sight yet: resting, by Bybit's word. */
  private accepted(r: ConditionalOrderRequest, params: Record<string, string | number>): ConditionalOrder {
    const trailing = r.type === 'TRAILING_STOP_MARKET';
    return {
      algoId: '',
      clientAlgoId: r.clientAlgoId,
      symbol: r.symbol,
      side: r.side,
      type: r.type,
      status: 'NEW',
      triggerPrice: trailing ? null : String(params.stopLoss ?? params.takeProfit),
      quantity: null,
      closePosition: true,
      callbackRate: r.callbackRate ?? null,
      activatePrice: trailing && params.activePrice !== undefined ? String(params.activePrice) : null,
      actualOrderId: null,
      updateTime: this.now(),
    };
  }
}

const LEG_KINDS: Record<string, true> = { StopLoss: true, TakeProfit: true, TrailingStop: true };
