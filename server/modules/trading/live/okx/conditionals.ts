import Decimal from 'decimal.js';
import type {
  ConditionalOrder,
  ConditionalOrderRequest,
  ConditionalStatus,
  ConditionalType,
  PositionRisk,
} from '../../exchange';
import { RESTING_CONDITIONALS } from '../../exchange';
import { ExchangeError, exchangeErrors, readVenueAnswer } from '../../exchange-error';
import { outcomeOf } from '../unknown-outcome';
import { AlgoAccepted, AlgoRow, AlgoRows, type OkxAlgo, type OkxInstrument } from './answers';
import type { OkxCall } from './orders';
import { NO_SUCH_ORDER } from './orders';
import { sideOf, okxSide } from './shapes';
import { VENUE, appIdOf, contractsOf, okxIdOf, symbolOf } from './symbols';

const ORDER_ALGO = '/api/v5/trade/order-algo';
/** The algo kinds the adapter places: a stop or a target (`conditional`), a trailing stop. */
const KINDS = ['conditional', 'move_order_stop'] as const;

export interface LegContext {
  instrument(symbol: string): Promise<OkxInstrument>;
  /** The account's position on the symbol, read now; undefined when flat. */
  position(account: string, symbol: string): Promise<PositionRisk | undefined>;
}

/**
 * An algo's state in Binance's words: `live` (and `pause`) rest (NEW); `partially_effective` fired and
 * its order works (TRIGGERED); `effective` fired and placed its market order (FINISHED: a market order
 * is done at once); `canceled` CANCELED (by the user, or by OKX once the position it closed is gone);
 * `order_failed` and `partially_failed` REJECTED.
 */
export function algoStatusOf(state: OkxAlgo['state']): ConditionalStatus {
  switch (state) {
    case 'live':
    case 'pause':
      return 'NEW';
    case 'partially_effective':
      return 'TRIGGERED';
    case 'effective':
      return 'FINISHED';
    case 'canceled':
      return 'CANCELED';
    case 'order_failed':
    case 'partially_failed':
      return 'REJECTED';
  }
}

const given = (value: string): string | null => (new Decimal(value).isZero() ? null : value);

/**
 * An OKX algo as Binance's conditional order, under the app's client id (read back from its algoClOrdId,
 * else `clientAlgoId` when the caller knows it, else OKX's own). A conditional with `closeFraction` 1
 * closes the whole position; a trailing stop's `sz` (contracts) is its quantity in coins, its
 * callbackRatio (a fraction) Binance's callbackRate in %.
 */
export function conditionalOf(
  a: OkxAlgo,
  i: Pick<OkxInstrument, 'ctVal'>,
  clientAlgoId?: string,
): ConditionalOrder | null {
  const symbol = symbolOf(a.instId);
  if (symbol === null) return null;
  const trailing = a.ordType === 'move_order_stop';
  const stop = given(a.slTriggerPx);
  const target = given(a.tpTriggerPx);
  if (!trailing && (a.ordType !== 'conditional' || (stop === null) === (target === null))) return null;
  const type: ConditionalType = trailing
    ? 'TRAILING_STOP_MARKET'
    : stop !== null
      ? 'STOP_MARKET'
      : 'TAKE_PROFIT_MARKET';
  const status = algoStatusOf(a.state);
  const whole = !trailing && new Decimal(a.closeFraction).eq(1);
  return {
    algoId: a.algoId,
    clientAlgoId: appIdOf(a.algoClOrdId) ?? clientAlgoId ?? a.algoClOrdId,
    symbol,
    side: sideOf(a.side),
    type,
    status,
    triggerPrice: trailing ? null : (stop ?? target),
    quantity: whole ? null : new Decimal(a.sz).mul(i.ctVal).toFixed(),
    closePosition: whole,
    callbackRate: trailing ? new Decimal(a.callbackRatio).mul(100).toFixed() : null,
    activatePrice: trailing ? given(a.activePx) : null,
    actualOrderId: status === 'TRIGGERED' || status === 'FINISHED' ? a.ordId || null : null,
    updateTime: a.uTime ?? a.cTime,
  };
}

/**
 * The position's stop loss, take profit and trailing stop as OKX's own algo orders
 * (`POST /api/v5/trade/order-algo`), each under its algoClOrdId (the app's client id mapped by
 * {@link okxIdOf}): a stop or a target is a `conditional` on the MARK price that closes the whole
 * position at market (`closeFraction` 1, reduce-only, `-1` as its order price); a trailing stop is a
 * `move_order_stop` of its quantity in contracts, reduce-only. Placing a leg whose client id OKX holds
 * already answers that one (placing the same leg again is safe); one id is never placed twice at once.
 */
export class OkxConditionals {
  private readonly inFlight = new Map<string, Promise<unknown>>();

  constructor(
    private readonly call: OkxCall,
    private readonly ctx: LegContext,
  ) {}

  async place(account: string, r: ConditionalOrderRequest): Promise<ConditionalOrder> {
    const key = `${account}|${okxIdOf(r.clientAlgoId)}`;
    for (let busy = this.inFlight.get(key); busy !== undefined; busy = this.inFlight.get(key)) {
      await busy.catch(() => undefined);
    }
    const run = this.placeOnce(account, r);
    this.inFlight.set(key, run);
    try {
      return await run;
    } finally {
      if (this.inFlight.get(key) === run) this.inFlight.delete(key);
    }
  }

  private async placeOnce(account: string, r: ConditionalOrderRequest): Promise<ConditionalOrder> {
    const [instrument, position] = await Promise.all([
      this.ctx.instrument(r.symbol),
      this.ctx.position(account, r.symbol),
    ]);
    const earlier = await this.query(account, r.symbol, r.clientAlgoId).catch((err: unknown) => {
      throw outcomeOf(err);
    });
    if (earlier !== null) return earlier;
    // A SELL leg protects a long: against a short, or with nothing open, it has nothing to close.
    if (position === undefined || Number(position.positionAmt) > 0 !== (r.side === 'SELL')) {
      throw exchangeErrors.reduceOnlyRejected();
    }
    const params = algoParams(r, instrument);
    let algoId: string;
    try {
      const { data } = await this.call(account, 'POST', ORDER_ALGO, params);
      // The schema takes exactly one row.
      algoId = readVenueAnswer(AlgoAccepted, data, 'the conditional order', VENUE)[0]?.algoId ?? '';
    } catch (err) {
      throw outcomeOf(err);
    }
    const placed = await this.byId(account, { algoId }).catch(() => null);
    const leg = placed === null ? null : conditionalOf(placed, instrument, r.clientAlgoId);
    return leg ?? accepted(r, algoId, params);
  }

  /** The leg by its client id, in whatever state; null only when OKX does not know it. */
  async query(account: string, symbol: string, clientAlgoId: string): Promise<ConditionalOrder | null> {
    const [instrument, row] = await Promise.all([
      this.ctx.instrument(symbol),
      this.byId(account, { algoClOrdId: okxIdOf(clientAlgoId) }),
    ]);
    return row === null || symbolOf(row.instId) !== symbol
      ? null
      : conditionalOf(row, instrument, clientAlgoId);
  }

  /** Cancels the leg while it rests (`POST /trade/cancel-algos`); null when no open one has that id. */
  async cancel(account: string, symbol: string, clientAlgoId: string): Promise<ConditionalOrder | null> {
    const before = await this.query(account, symbol, clientAlgoId);
    if (before === null || !RESTING_CONDITIONALS.has(before.status)) return null;
    const instrument = await this.ctx.instrument(symbol);
    try {
      await this.call(account, 'POST', '/api/v5/trade/cancel-algos', [
        { algoId: before.algoId, instId: instrument.instId },
      ]);
    } catch (err) {
      // Refused: when it no longer rests (it fired, OKX cancelled it with its position), nothing rests.
      if (err instanceof ExchangeError) {
        const now = await this.query(account, symbol, clientAlgoId);
        if (now === null || !RESTING_CONDITIONALS.has(now.status)) return null;
      }
      throw outcomeOf(err);
    }
    return { ...before, status: 'CANCELED', updateTime: Date.now() };
  }

  /** Every stop, target and trailing stop resting now (on one symbol, when given). */
  async open(account: string, symbol?: string): Promise<ConditionalOrder[]> {
    const instId = symbol === undefined ? undefined : (await this.ctx.instrument(symbol)).instId;
    const out: ConditionalOrder[] = [];
    for (const ordType of KINDS) {
      const { data } = await this.call(account, 'GET', '/api/v5/trade/orders-algo-pending', {
        ordType,
        instType: 'SWAP',
        ...(instId === undefined ? {} : { instId }),
      });
      for (const raw of readVenueAnswer(AlgoRows, data, 'the conditional orders', VENUE)) {
        const row = readVenueAnswer(AlgoRow, raw, 'the conditional orders', VENUE);
        const rowSymbol = symbolOf(row.instId);
        if (rowSymbol === null) continue;
        const leg = conditionalOf(row, await this.ctx.instrument(rowSymbol).catch(() => ({ ctVal: '1' })));
        if (leg !== null && RESTING_CONDITIONALS.has(leg.status)) out.push(leg);
      }
    }
    return out;
  }

  /** `GET /trade/order-algo` by algoId or algoClOrdId; null when OKX does not know it. */
  private async byId(
    account: string,
    by: { algoId: string } | { algoClOrdId: string },
  ): Promise<OkxAlgo | null> {
    try {
      const { data } = await this.call(account, 'GET', ORDER_ALGO, by);
      const [row] = readVenueAnswer(AlgoRows, data, 'the conditional order', VENUE);
      return row === undefined ? null : readVenueAnswer(AlgoRow, row, 'the conditional order', VENUE);
    } catch (err) {
      if (err instanceof ExchangeError && err.code === NO_SUCH_ORDER) return null;
      throw err;
    }
  }
}

/** The `order-algo` body of one leg (prices on the swap's tick, sizes in contracts). */
export function algoParams(r: ConditionalOrderRequest, i: OkxInstrument): Record<string, string | boolean> {
  const onTick = (price: string) => new Decimal(price).toNearest(i.tickSz).toFixed();
  const base = {
    instId: i.instId,
    tdMode: 'cross',
    side: okxSide(r.side),
    algoClOrdId: okxIdOf(r.clientAlgoId),
    reduceOnly: true,
  };
  if (r.type === 'TRAILING_STOP_MARKET') {
    if (r.callbackRate === undefined || r.quantity === undefined) {
      throw new Error('a trailing stop needs its quantity and callback rate');
    }
    const sz = contractsOf(r.quantity, i);
    if (sz.lt(i.minSz)) throw exchangeErrors.quantityTooSmall();
    return {
      ...base,
      ordType: 'move_order_stop',
      sz: sz.toFixed(),
      callbackRatio: new Decimal(r.callbackRate).div(100).toFixed(),
      ...(r.activatePrice === undefined ? {} : { activePx: onTick(r.activatePrice) }),
    };
  }
  if (r.triggerPrice === undefined) throw new Error(`a ${r.type} needs its trigger price`);
  if (r.quantity !== undefined || r.closePosition === false) {
    throw new Error(`a ${r.type} closes the whole position: no quantity`);
  }
  const leg: Record<string, string> =
    r.type === 'STOP_MARKET'
      ? { slTriggerPx: onTick(r.triggerPrice), slOrdPx: '-1', slTriggerPxType: 'mark' }
      : { tpTriggerPx: onTick(r.triggerPrice), tpOrdPx: '-1', tpTriggerPxType: 'mark' };
  return { ...base, ordType: 'conditional', closeFraction: '1', ...leg };
}

/** OKX took the leg but it is not in sight yet: resting, by OKX's word. */
function accepted(
  r: ConditionalOrderRequest,
  algoId: string,
  params: Record<string, string | boolean>,
): ConditionalOrder {
  const trailing = r.type === 'TRAILING_STOP_MARKET';
  const trigger = params.slTriggerPx ?? params.tpTriggerPx;
  return {
    algoId,
    clientAlgoId: r.clientAlgoId,
    symbol: r.symbol,
    side: r.side,
    type: r.type,
    status: 'NEW',
    triggerPrice: trailing || typeof trigger !== 'string' ? null : trigger,
    quantity: trailing ? (r.quantity ?? null) : null,
    closePosition: !trailing,
    callbackRate: r.callbackRate ?? null,
    activatePrice: trailing && typeof params.activePx === 'string' ? params.activePx : null,
    actualOrderId: null,
    updateTime: Date.now(),
  };
}
