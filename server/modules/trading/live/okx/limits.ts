import Decimal from 'decimal.js';
import { z } from 'zod';
import type { VenueCredentials } from '../../../exchanges/credentials';
import type { LimitOrderRequest, OrderBookDepth, OrderResult, RestingOrder } from '../../exchange';
import { ExchangeError, OrderOutcomeUnknown, readVenueAnswer } from '../../exchange-error';
import { decimalText } from '../binance-answers';
import { depthOf, isResting, lookUpAfterUnknown, onGrid, timerSleep } from '../limit-grid';
import { outcomeOf } from '../unknown-outcome';
import { OrderAccepted, OrderRow, type OkxInstrument } from './answers';
import { DUPLICATE_CLIENT_ID, NO_SUCH_ORDER, type OkxCall, type OkxOrders } from './orders';
import { okxSide, orderStatusOf, sideOf } from './shapes';
import { VENUE, appIdOf, coinsOf, contractsOf, okxIdOf, symbolOf } from './symbols';

/**
 * 51400 "Order cancellation failed as the order has been filled, canceled or does not exist": no
 * pending order by that id.
 */
export const NOT_PENDING = 51400;
/** OKX's cancelSource when it cancelled a post-only order that would have taken liquidity. */
const POST_ONLY_TOOK = '31';

/** The product's time in force as OKX's ordType. */
const ORD_TYPE = { GTC: 'limit', IOC: 'ioc', GTX: 'post_only' } as const;

/** An order row with what a limit order is told by: its price and, once cancelled, by whom. */
const LimitRow = OrderRow.extend({
  px: z.union([decimalText, z.literal('')]).transform((v) => (v === '' ? '0' : v)),
  cancelSource: z.string().default(''),
  cancelSourceReason: z.string().default(''),
});
type LimitRow = z.output<typeof LimitRow>;
const PendingRows = z.array(z.looseObject({ ordType: z.string(), ordId: z.string() }));

/** `GET /api/v5/market/books`: `[price, contracts, 0, orders]` levels, best first. */
const BooksAnswer = z
  .array(
    z.object({
      bids: z.array(z.tuple([decimalText, decimalText]).rest(z.string())),
      asks: z.array(z.tuple([decimalText, decimalText]).rest(z.string())),
    }),
  )
  .length(1);

function restingOf(o: LimitRow, i: Pick<OkxInstrument, 'ctVal'>): RestingOrder {
  return {
    orderId: o.ordId,
    clientOrderId: appIdOf(o.clOrdId) ?? o.clOrdId,
    symbol: symbolOf(o.instId) ?? o.instId,
    side: sideOf(o.side),
    price: o.px,
    origQty: coinsOf(o.sz, i).toFixed(),
    executedQty: coinsOf(o.accFillSz, i).toFixed(),
    timeInForce: o.ordType === 'limit' ? 'GTC' : o.ordType === 'post_only' ? 'GTX' : 'IOC',
    reduceOnly: o.reduceOnly,
    status: orderStatusOf(o),
    time: o.cTime,
    updateTime: o.uTime || o.cTime,
  };
}

export interface OkxLimitDeps {
  call: OkxCall;
  publicGet(path: string, params: Record<string, string | number>): Promise<unknown[]>;
  orders: OkxOrders;
  credentials(account: string): Promise<VenueCredentials>;
  instrument(symbol: string): Promise<OkxInstrument>;
  instrumentOf(instId: string): Promise<OkxInstrument | undefined>;
  changed(account: string, result?: OrderResult): void;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Limit orders on OKX's swaps, cross margin: `POST /api/v5/trade/order` ordType limit, ioc or post_only
 * with `px` and `sz` in contracts (the quantity asked in coins over `ctVal`), `GET
 * /api/v5/trade/orders-pending`, `POST /api/v5/trade/cancel-order`, and the public `market/books`. A
 * refusal inside HTTP 200 (sCode ≠ 0) is OKX's refusal in its words; a post-only OKX cancelled for
 * taking (cancelSource 31) is told as a refusal too. A placement with no clear answer is looked up by its
 * clOrdId, never sent again.
 */
export class OkxLimits {
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly deps: OkxLimitDeps) {
    this.sleep = deps.sleep ?? timerSleep;
  }

  async place(account: string, request: LimitOrderRequest): Promise<OrderResult> {
    const instrument = await this.deps.instrument(request.symbol);
    const { price, quantity } = onGrid(request, gridOf(instrument));
    const creds = await this.deps.credentials(account);
    const clOrdId = okxIdOf(request.newClientOrderId);
    const instId = instrument.instId;
    let row: LimitRow;
    try {
      const answer = await this.deps.call(
        account,
        'POST',
        '/api/v5/trade/order',
        {
          instId,
          tdMode: 'cross',
          side: okxSide(request.side),
          ordType: ORD_TYPE[request.timeInForce],
          px: price.toFixed(),
          sz: contractsOf(quantity, instrument).toFixed(),
          clOrdId,
          ...(request.reduceOnly === true ? { reduceOnly: true } : {}),
        },
        creds,
      );
      const [accepted] = readVenueAnswer(OrderAccepted, answer.data, 'the order', VENUE);
      row = await lookUpAfterUnknown(
        new OrderOutcomeUnknown('OKX took the order; it is not seen yet.'),
        () => this.row(account, instId, { ordId: accepted?.ordId ?? '' }, creds),
        this.sleep,
        [0, 50, 200, 500],
      );
    } catch (err) {
      if (err instanceof ExchangeError && err.code === DUPLICATE_CLIENT_ID)
        throw new ExchangeError(-4116, err.msg);
      const outcome = outcomeOf(err);
      if (!(outcome instanceof OrderOutcomeUnknown)) throw outcome;
      row = await lookUpAfterUnknown(
        outcome,
        () => this.row(account, instId, { clOrdId }, creds),
        this.sleep,
      );
    } finally {
      this.deps.changed(account);
    }
    if (row.ordType === 'post_only' && row.cancelSource === POST_ONLY_TOOK) {
      throw new ExchangeError(
        -5022,
        row.cancelSourceReason || 'OKX cancelled the post-only order: it would have taken liquidity.',
      );
    }
    const result = await this.deps.orders.withFees(
      account,
      row,
      request.newClientOrderId,
      request.symbol,
      instrument,
      creds,
    );
    if (Number(result.executedQty) > 0) this.deps.changed(account, result);
    return result;
  }

  async open(account: string, symbol?: string): Promise<RestingOrder[]> {
    const instId = symbol === undefined ? undefined : (await this.deps.instrument(symbol)).instId;
    const out: RestingOrder[] = [];
    let after = '';
    for (let n = 0; n < 10; n++) {
      const { data } = await this.deps.call(account, 'GET', '/api/v5/trade/orders-pending', {
        instType: 'SWAP',
        ...(instId === undefined ? {} : { instId }),
        limit: 100,
        ...(after === '' ? {} : { after }),
      });
      const rows = readVenueAnswer(PendingRows, data, 'the open orders', VENUE);
      for (const raw of rows) {
        if (raw.ordType !== 'limit' && raw.ordType !== 'post_only') continue;
        const row = readVenueAnswer(LimitRow, raw, 'the open orders', VENUE);
        const instrument = await this.deps.instrumentOf(row.instId);
        if (instrument !== undefined) out.push(restingOf(row, instrument));
      }
      after = rows.at(-1)?.ordId ?? '';
      if (rows.length < 100) break;
    }
    return out;
  }

  /**
   * Cancels one pending order, then reads it back. 51400 means OKX holds no pending order by that id:
   * it is looked up, and null told when it is no longer open.
   */
  async cancel(
    account: string,
    symbol: string,
    ref: { orderId?: string; clientOrderId?: string },
  ): Promise<RestingOrder | null> {
    const instrument = await this.deps.instrument(symbol);
    const creds = await this.deps.credentials(account);
    const by: Record<string, string> =
      ref.orderId !== undefined ? { ordId: ref.orderId } : { clOrdId: okxIdOf(ref.clientOrderId ?? '') };
    const find = () => this.row(account, instrument.instId, by, creds);
    try {
      await this.deps.call(
        account,
        'POST',
        '/api/v5/trade/cancel-order',
        { instId: instrument.instId, ...by },
        creds,
      );
    } catch (err) {
      const outcome = outcomeOf(err);
      const notPending = outcome instanceof ExchangeError && outcome.code === NOT_PENDING;
      if (!notPending && !(outcome instanceof OrderOutcomeUnknown)) throw outcome;
      const found = await find().catch(() => null);
      if (found !== null && isResting(restingOf(found, instrument))) throw outcome;
      if (notPending || found === null) return null;
    } finally {
      this.deps.changed(account);
    }
    const row = await find();
    return row === null ? null : restingOf(row, instrument);
  }

  async depth(symbol: string, limit: number): Promise<OrderBookDepth> {
    const instrument = await this.deps.instrument(symbol);
    const data = await this.deps.publicGet('/api/v5/market/books', {
      instId: instrument.instId,
      sz: Math.min(Math.max(limit, 1), 400),
    });
    const [book] = readVenueAnswer(BooksAnswer, data, 'the order book', VENUE);
    const pair = (l: readonly string[]) => [l[0] ?? '0', l[1] ?? '0'] as [string, string];
    return depthOf(book?.bids.map(pair) ?? [], book?.asks.map(pair) ?? [], instrument.ctVal);
  }

  /** `GET /trade/order` with the limit fields; null when OKX knows none (51603). */
  private async row(
    account: string,
    instId: string,
    by: Record<string, string>,
    creds: VenueCredentials,
  ): Promise<LimitRow | null> {
    try {
      const { data } = await this.deps.call(account, 'GET', '/api/v5/trade/order', { instId, ...by }, creds);
      return readVenueAnswer(z.array(LimitRow), data, 'the order look-up', VENUE)[0] ?? null;
    } catch (err) {
      if (err instanceof ExchangeError && err.code === NO_SUCH_ORDER) return null;
      throw err;
    }
  }
}

/** A swap's tick and lot step in coins, for {@link onGrid}. */
function gridOf(i: OkxInstrument) {
  const ctVal = new Decimal(i.ctVal);
  return { tickSize: new Decimal(i.tickSz), stepSize: ctVal.mul(i.lotSz), minQty: ctVal.mul(i.minSz) };
}
