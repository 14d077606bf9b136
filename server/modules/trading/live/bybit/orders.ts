import Decimal from 'decimal.js';
import type { z } from 'zod';
import type { VenueCredentials } from '../../../exchanges/credentials';
import { FINAL_STATUSES, type OrderResult, type OrderSide } from '../../exchange';
import { ExchangeError, readVenueAnswer } from '../../exchange-error';
import type { OrderFees } from '../binance-shapes';
import { outcomeOf } from '../unknown-outcome';
import {
  ClosedPnlAnswer,
  ExecutionsAnswer,
  OrderAccepted,
  OrderRow,
  OrdersPage,
  type BybitOrder,
} from './answers';
import { bybitSide, grossPnlOf, linkIdOf, orderResultOf, orderStatusOf } from './shapes';
import type { BybitStreamFees } from './translate';

/** A signed call on behalf of an account; `creds` when the caller has them decrypted already. */
export type BybitCall = (
  account: string,
  method: 'GET' | 'POST',
  path: string,
  params: Record<string, string | number | boolean>,
  creds?: VenueCredentials,
) => Promise<unknown>;

export const VENUE = { venue: 'Bybit' } as const;
/** 110072 "OrderLinkedID is duplicate": an order with this orderLinkId exists (the app's -4116). */
export const DUPLICATE_LINK_ID = 110072;

export interface MarketOrder {
  symbol: string;
  side: OrderSide;
  /** Base-asset quantity on the symbol's qtyStep. */
  qty: string;
  /** The app's client id (mapped to an orderLinkId by {@link linkIdOf}). */
  clientOrderId: string;
  reduceOnly?: boolean;
}

export interface ConfirmOptions {
  /** Look-ups after Bybit accepted an order, until it is final (default 5). */
  attempts?: number;
  /** The wait before the n-th look-up is n times this (default 100 ms). */
  delayMs?: number;
}

/**
 * Market orders on Bybit's linear book. `POST /v5/order/create` only says Bybit accepted the order, so
 * each is then looked up by its orderLinkId (`/v5/order/realtime`, then `/v5/order/history`) until it is
 * final, and its fee and realised PnL read from its fills (`/v5/execution/list`) and, for a close, its
 * closed-PnL record (`/v5/position/closed-pnl`). An order that stays unseen after the look-ups is told
 * as NEW with nothing executed (accepted, not finished: the caller looks it up again).
 */
export class BybitOrders {
  constructor(
    private readonly call: BybitCall,
    private readonly sleep: (ms: number) => Promise<void>,
    private readonly streamFees: BybitStreamFees,
    private readonly confirm: ConfirmOptions,
    private readonly now: () => number,
  ) {}

  async place(account: string, o: MarketOrder, creds: VenueCredentials): Promise<OrderResult> {
    const linkId = linkIdOf(o.clientOrderId);
    let accepted: z.output<typeof OrderAccepted>;
    try {
      const body = await this.call(
        account,
        'POST',
        '/v5/order/create',
        {
          category: 'linear',
          symbol: o.symbol,
          side: bybitSide(o.side),
          orderType: 'Market',
          qty: o.qty,
          orderLinkId: linkId,
          positionIdx: 0,
          ...(o.reduceOnly === true ? { reduceOnly: true } : {}),
        },
        creds,
      );
      accepted = readVenueAnswer(OrderAccepted, body, 'the order', VENUE);
    } catch (err) {
      if (err instanceof ExchangeError && err.code === DUPLICATE_LINK_ID) {
        throw new ExchangeError(-4116, err.msg);
      }
      // No answer, a time-out, any 5xx, 10000/10016, an answer that cannot be read: it may exist.
      throw outcomeOf(err);
    }
    const attempts = this.confirm.attempts ?? 5;
    let row: BybitOrder | null = null;
    for (let n = 1; n <= attempts; n++) {
      row = (await this.find(account, o.symbol, linkId, creds).catch(() => null)) ?? row;
      if (row !== null && FINAL_STATUSES.has(orderStatusOf(row))) break;
      if (n < attempts) await this.sleep((this.confirm.delayMs ?? 100) * n);
    }
    if (row === null) {
      return {
        orderId: accepted.orderId,
        clientOrderId: o.clientOrderId,
        symbol: o.symbol,
        side: o.side,
        type: 'MARKET',
        status: 'NEW',
        origQty: o.qty,
        reduceOnly: o.reduceOnly === true,
        executedQty: '0',
        avgPrice: '0',
        cumQuote: '0',
        commission: null,
        realizedPnl: null,
        updateTime: this.now(),
      };
    }
    return this.withFees(account, row, o.clientOrderId, creds);
  }

  /** The order by the app's client id, in whatever state; null only when Bybit knows none by it. */
  async query(
    account: string,
    clientOrderId: string,
    symbol: string,
    creds: VenueCredentials,
  ): Promise<OrderResult | null> {
    const row = await this.find(account, symbol, linkIdOf(clientOrderId), creds);
    return row === null ? null : this.withFees(account, row, clientOrderId, creds);
  }

  /** The fills' fee and realised PnL, from the stream's report of them or their REST records. */
  async fees(
    account: string,
    order: Pick<OrderResult, 'symbol' | 'orderId' | 'executedQty'>,
    creds?: VenueCredentials,
  ): Promise<OrderFees | null> {
    return (
      this.streamFees.of(account, order.orderId, order.executedQty) ??
      (await this.restFees(account, order.symbol, order.orderId, order.executedQty, creds).catch(() => null))
    );
  }

  /** Open and recent orders first (`/v5/order/realtime`), then the history. */
  async find(
    account: string,
    symbol: string,
    linkId: string,
    creds: VenueCredentials,
  ): Promise<BybitOrder | null> {
    for (const path of ['/v5/order/realtime', '/v5/order/history']) {
      const body = await this.call(
        account,
        'GET',
        path,
        { category: 'linear', symbol, orderLinkId: linkId },
        creds,
      );
      const found = readVenueAnswer(OrdersPage, body, 'the order look-up', VENUE).list.find(
        (r) => r.orderLinkId === linkId,
      );
      if (found !== undefined) return readVenueAnswer(OrderRow, found, 'the order look-up', VENUE);
    }
    return null;
  }

  /** The order in the app's shape, with its fills' fee and realised PnL (null while not told). */
  async withFees(
    account: string,
    row: BybitOrder,
    clientOrderId: string,
    creds: VenueCredentials,
  ): Promise<OrderResult> {
    const fees = new Decimal(row.cumExecQty).isZero()
      ? { commission: '0', realizedPnl: '0' }
      : await this.fees(
          account,
          { symbol: row.symbol, orderId: row.orderId, executedQty: row.cumExecQty },
          creds,
        );
    return orderResultOf(row, clientOrderId, fees);
  }

  /**
   * The order's fills summed, when they account for all it executed and are charged in USDT; its
   * realised PnL 0 when it closed nothing, else from its closed-PnL record (null while Bybit has none).
   */
  private async restFees(
    account: string,
    symbol: string,
    orderId: string,
    executedQty: string,
    creds?: VenueCredentials,
  ): Promise<OrderFees | null> {
    const fills = readVenueAnswer(
      ExecutionsAnswer,
      await this.call(
        account,
        'GET',
        '/v5/execution/list',
        { category: 'linear', orderId, limit: 100 },
        creds,
      ),
      "the order's fills",
      VENUE,
    ).list.filter((f) => f.orderId === orderId);
    const sum = (pick: (f: (typeof fills)[number]) => string) =>
      fills.reduce((acc, f) => acc.plus(pick(f)), new Decimal(0));
    if (!sum((f) => f.execQty).eq(executedQty)) return null;
    if (fills.some((f) => f.feeCurrency !== '' && f.feeCurrency !== 'USDT')) return null;
    const commission = sum((f) => f.execFee).toFixed();
    if (sum((f) => f.closedSize).isZero()) return { commission, realizedPnl: '0' };
    const closed = readVenueAnswer(
      ClosedPnlAnswer,
      await this.call(
        account,
        'GET',
        '/v5/position/closed-pnl',
        { category: 'linear', symbol, limit: 100 },
        creds,
      ),
      "the order's closed PnL",
      VENUE,
    ).list.filter((r) => r.orderId === orderId);
    if (closed.length === 0) return null;
    const realizedPnl = closed.reduce((acc, r) => acc.plus(grossPnlOf(r)), new Decimal(0)).toFixed();
    return { commission, realizedPnl };
  }
}
