import Decimal from 'decimal.js';
import type { VenueCredentials } from '../../../exchanges/credentials';
import type { OkxAnswer } from '../../../exchanges/okx-client';
import { FINAL_STATUSES, type OrderResult, type OrderSide } from '../../exchange';
import { ExchangeError, readVenueAnswer } from '../../exchange-error';
import type { OrderFees } from '../binance-shapes';
import { outcomeOf } from '../unknown-outcome';
import { FillRows, OrderAccepted, OrderRows, type OkxInstrument, type OkxOrder } from './answers';
import { okxSide, orderFeesOf, orderResultOf, orderStatusOf, type OkxOrderResult } from './shapes';
import { VENUE, okxIdOf } from './symbols';

/** A signed call on behalf of an account: OKX's rows and its gateway times. */
export type OkxCall = (
  account: string,
  method: 'GET' | 'POST',
  path: string,
  params: Record<string, string | number | boolean> | Record<string, string | number | boolean>[],
  creds?: VenueCredentials,
) => Promise<OkxAnswer>;

/** 51016 "Duplicated clOrdId": an order with this clOrdId is pending (the app's -4116). */
export const DUPLICATE_CLIENT_ID = 51016;
/** 51603 "Order does not exist". */
export const NO_SUCH_ORDER = 51603;
/** How long the adapter remembers a client id it sent, to look it up before sending it again. */
const SENT_KEEP_MS = 24 * 3_600_000;
const SENT_MAX = 50_000;

export interface MarketOrder {
  symbol: string;
  instrument: OkxInstrument;
  side: OrderSide;
  /** Contracts on the swap's lot (`sz`). */
  sz: string;
  /** The app's client id (mapped to a clOrdId by {@link okxIdOf}). */
  clientOrderId: string;
  reduceOnly?: boolean;
}

export interface ConfirmOptions {
  /** Look-ups after OKX took an order, until it is final (default 5). */
  attempts?: number;
  /** The wait before the n-th look-up is n times this (default 100 ms). */
  delayMs?: number;
}

/**
 * Market orders on OKX's swaps, in cross margin and net mode. OKX's answer to `POST /trade/order` only
 * says it took the order, so each is then looked up (`GET /trade/order?ordId=`) until it is final; the
 * order itself carries its fee and PnL once done. A clOrdId is unique only among PENDING orders on OKX:
 * a filled order's id could be taken again, so an id sent before from here is looked up before it goes
 * out again (found: -4116, never a second order), and one id is never in flight twice at once.
 */
export class OkxOrders {
  private readonly inFlight = new Map<string, Promise<unknown>>();
  private readonly sent = new Map<string, number>();

  constructor(
    private readonly call: OkxCall,
    private readonly sleep: (ms: number) => Promise<void>,
    private readonly confirm: ConfirmOptions,
    private readonly now: () => number,
  ) {}

  async place(account: string, o: MarketOrder, creds: VenueCredentials): Promise<OkxOrderResult> {
    const key = `${account}|${okxIdOf(o.clientOrderId)}`;
    // Check-then-act on one client id runs one at a time: the others wait, then look up what it did.
    for (let busy = this.inFlight.get(key); busy !== undefined; busy = this.inFlight.get(key)) {
      await busy.catch(() => undefined);
    }
    const run = this.placeOnce(account, key, o, creds);
    this.inFlight.set(key, run);
    try {
      return await run;
    } finally {
      if (this.inFlight.get(key) === run) this.inFlight.delete(key);
    }
  }

  private async placeOnce(
    account: string,
    key: string,
    o: MarketOrder,
    creds: VenueCredentials,
  ): Promise<OkxOrderResult> {
    const clOrdId = okxIdOf(o.clientOrderId);
    const instId = o.instrument.instId;
    if (this.sent.has(key)) {
      const earlier = await this.find(account, instId, { clOrdId }, creds).catch((err: unknown) => {
        throw outcomeOf(err);
      });
      if (earlier !== null) {
        throw new ExchangeError(-4116, 'OKX holds an order with this client id already.');
      }
    }
    this.remember(key);
    let answer: OkxAnswer;
    let ordId: string;
    try {
      answer = await this.call(
        account,
        'POST',
        '/api/v5/trade/order',
        {
          instId,
          tdMode: 'cross',
          side: okxSide(o.side),
          ordType: 'market',
          sz: o.sz,
          clOrdId,
          ...(o.reduceOnly === true ? { reduceOnly: true } : {}),
        },
        creds,
      );
      // The schema takes exactly one row.
      ordId = readVenueAnswer(OrderAccepted, answer.data, 'the order', VENUE)[0]?.ordId ?? '';
    } catch (err) {
      if (err instanceof ExchangeError && err.code === DUPLICATE_CLIENT_ID) {
        throw new ExchangeError(-4116, err.msg);
      }
      // No answer, a time-out, any 5xx, 50004/51149 and the like, an answer that cannot be read.
      throw outcomeOf(err);
    }
    const venueTimes = { inTime: answer.inTime, outTime: answer.outTime };
    const own = ownMs(answer.inTime, answer.outTime);
    const attempts = this.confirm.attempts ?? 5;
    let row: OkxOrder | null = null;
    for (let n = 1; n <= attempts; n++) {
      row = (await this.find(account, instId, { ordId }, creds).catch(() => null)) ?? row;
      if (row !== null && FINAL_STATUSES.has(orderStatusOf(row))) break;
      if (n < attempts) await this.sleep((this.confirm.delayMs ?? 100) * n);
    }
    if (row === null) {
      return {
        orderId: ordId,
        clientOrderId: o.clientOrderId,
        symbol: o.symbol,
        side: o.side,
        type: 'MARKET',
        status: 'NEW',
        origQty: new Decimal(o.sz).mul(o.instrument.ctVal).toFixed(),
        reduceOnly: o.reduceOnly === true,
        executedQty: '0',
        avgPrice: '0',
        cumQuote: '0',
        commission: null,
        realizedPnl: null,
        updateTime: this.now(),
        venueTimes,
        ...own,
      };
    }
    return {
      ...(await this.withFees(account, row, o.clientOrderId, o.symbol, o.instrument, creds)),
      venueTimes,
      ...own,
    };
  }

  /** The order by the app's client id, in whatever state (OKX answers the latest by that clOrdId). */
  async query(
    account: string,
    clientOrderId: string,
    symbol: string,
    instrument: OkxInstrument,
    creds: VenueCredentials,
  ): Promise<OrderResult | null> {
    const row = await this.find(account, instrument.instId, { clOrdId: okxIdOf(clientOrderId) }, creds);
    return row === null ? null : this.withFees(account, row, clientOrderId, symbol, instrument, creds);
  }

  /**
   * The fee and realised PnL of an order placed earlier: from the order once it is done, else from its
   * fills (`GET /trade/fills`) when they account for all it executed and are charged in USDT.
   */
  async fees(
    account: string,
    order: Pick<OrderResult, 'orderId' | 'executedQty'>,
    instrument: OkxInstrument,
    creds?: VenueCredentials,
  ): Promise<OrderFees | null> {
    const row = await this.find(account, instrument.instId, { ordId: order.orderId }, creds);
    const own = row === null ? null : orderFeesOf(row);
    if (own !== null) return own;
    const fills = readVenueAnswer(
      FillRows,
      (
        await this.call(
          account,
          'GET',
          '/api/v5/trade/fills',
          { instType: 'SWAP', instId: instrument.instId, ordId: order.orderId },
          creds,
        )
      ).data,
      "the order's fills",
      VENUE,
    ).filter((f) => f.ordId === order.orderId);
    const sum = (pick: (f: (typeof fills)[number]) => string) =>
      fills.reduce((acc, f) => acc.plus(pick(f)), new Decimal(0));
    if (
      !sum((f) => f.fillSz)
        .mul(instrument.ctVal)
        .eq(order.executedQty)
    )
      return null;
    if (fills.some((f) => f.feeCcy !== '' && f.feeCcy !== 'USDT')) return null;
    return {
      commission: sum((f) => f.fee)
        .neg()
        .toFixed(),
      realizedPnl: sum((f) => f.fillPnl).toFixed(),
    };
  }

  /** `GET /trade/order` by ordId or clOrdId; null when OKX says it does not exist (51603). */
  private async find(
    account: string,
    instId: string,
    by: { ordId: string } | { clOrdId: string },
    creds?: VenueCredentials,
  ): Promise<OkxOrder | null> {
    try {
      const { data } = await this.call(account, 'GET', '/api/v5/trade/order', { instId, ...by }, creds);
      return readVenueAnswer(OrderRows, data, 'the order look-up', VENUE)[0] ?? null;
    } catch (err) {
      if (err instanceof ExchangeError && err.code === NO_SUCH_ORDER) return null;
      throw err;
    }
  }

  /** The order in coins under the app's client id, with its fee and PnL (null while not known). */
  async withFees(
    account: string,
    row: OkxOrder,
    clientOrderId: string,
    symbol: string,
    instrument: OkxInstrument,
    creds: VenueCredentials,
  ): Promise<OrderResult> {
    const fees = new Decimal(row.accFillSz).isZero()
      ? { commission: '0', realizedPnl: '0' }
      : (orderFeesOf(row) ??
        (await this.fees(
          account,
          { orderId: row.ordId, executedQty: new Decimal(row.accFillSz).mul(instrument.ctVal).toFixed() },
          instrument,
          creds,
        ).catch(() => null)));
    return orderResultOf(row, clientOrderId, symbol, instrument, fees);
  }

  private remember(key: string): void {
    const now = this.now();
    for (const [k, at] of this.sent) {
      if (at >= now - SENT_KEEP_MS && this.sent.size < SENT_MAX) break;
      this.sent.delete(k);
    }
    this.sent.delete(key);
    this.sent.set(key, now);
  }
}

/** OKX's own time on a request, from its gateway's `inTime` and `outTime` (µs): nothing when either is missing. */
function ownMs(inTime: string | null, outTime: string | null): { venueOwnMs?: number } {
  if (inTime === null || outTime === null || !/^\d+$/.test(inTime) || !/^\d+$/.test(outTime)) return {};
  const us = Number(BigInt(outTime) - BigInt(inTime));
  return us >= 0 ? { venueOwnMs: us / 1000 } : {};
}
