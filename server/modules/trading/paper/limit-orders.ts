import { randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import { pairOf } from '../../../../src/contracts/trading';
import type { ExchangeEvent, LimitOrderRequest, OrderResult, RestingOrder } from '../exchange';
import { ExchangeError, exchangeErrors } from '../exchange-error';
import {
  applyEvent,
  DEFAULT_LEVERAGE,
  leverageOf,
  releaseLimit,
  type LedgerEvent,
  type PaperAccountState,
} from './account';
import type { AccountStore } from './account-store';
import { filtersFor } from './filters';
import { betterOf, crosses, toRestingOrder, unfilledResult, type LimitBook, type PaperLimit } from './limits';
import { floorToStep, liquidationPrice, roundToTick, ZERO } from './math';
import { planOrder, type FillConditions, type MarketOrderInput } from './orders';
import { limitUpdate } from './paper-events';
import { SymbolIndex } from './symbol-index';

type Fill = Extract<LedgerEvent, { type: 'fill' }>;

/** Binance's -5022, in words that say what to do. */
export const postOnlyRefused = (pair: string, price: string) =>
  new ExchangeError(
    -5022,
    `Post-only order refused: at ${price} it would take liquidity from the ${pair} book at once. ` +
      'Place it below the market to buy, above it to sell, or leave out post.',
  );

export interface LimitOrdersDeps {
  store: AccountStore;
  /** The price limit orders cross against (the last trade; the mark when there is none). */
  marketPrice: (symbol: string) => number | undefined;
  now: () => number;
  /** Slippage of a taker fill in basis points, and the taker and maker fee rates. */
  slippageBps: number;
  takerFeeRate: Decimal;
  makerFeeRate: Decimal;
  /** Books a fill and tells it, as every paper fill is (ORDER_TRADE_UPDATE, ACCOUNT_UPDATE). */
  commitFill: (account: string, fill: Fill) => Promise<OrderResult>;
  /** Books an event that is not a fill; answers the state after it. */
  commit: (account: string, event: LedgerEvent) => Promise<PaperAccountState>;
  /** ACCOUNT_UPDATE after a placement or an end (the available balance moved). */
  tellAccount: (account: string, state: PaperAccountState, at: number) => void;
  emit: (account: string, event: ExchangeEvent) => void;
  /** Whether the ledger holds a fill of this client id (an order that filled at once never rested). */
  filled: (account: string, clientOrderId: string) => Promise<boolean>;
}

/**
 * The paper venue's limit orders: placed (filled at once as a taker when they cross, else resting with
 * their margin held), listed, cancelled, and filled at their own price, as a maker, when the market
 * trades through them, within the account's own turn and through its ledger.
 */
export class LimitOrders {
  private readonly index = new SymbolIndex<LimitBook>();

  constructor(private readonly d: LimitOrdersDeps) {}

  stateChanged(account: string, state: PaperAccountState): void {
    this.index.update(account, state.limits);
  }

  place(account: string, request: LimitOrderRequest): Promise<OrderResult> {
    return this.d.store.serial(account, async () => {
      const { state } = await this.d.store.load(account);
      const found = await this.known(account, state, request.newClientOrderId);
      if (found) throw new ExchangeError(-4116, 'ClientOrderId is duplicated.');
      const market = this.d.marketPrice(request.symbol);
      if (market === undefined || !(market > 0)) throw exchangeErrors.noPrice();
      const filters = filtersFor(request.symbol, request.price);
      if (!filters) throw exchangeErrors.invalidSymbol();
      const price = new Decimal(request.price);
      const qty = floorToStep(new Decimal(request.quantity), filters.stepSize);
      if (!price.gt(0) || !qty.gt(0)) throw exchangeErrors.quantityTooSmall();
      if (!request.reduceOnly && qty.mul(price).lt(filters.minNotional)) {
        throw exchangeErrors.minNotional(pairOf(request.symbol), filters.minNotional.toString());
      }
      const last = new Decimal(market);
      if (crosses(request.side, price, last)) {
        if (request.timeInForce === 'GTX') throw postOnlyRefused(pairOf(request.symbol), request.price);
        return this.takeNow(account, state, request, qty, last, filters.tickSize);
      }
      if (request.timeInForce === 'IOC') {
        return unfilledResult({ ...this.shape(request, qty, ZERO, 'GTC'), orderId: randomUUID() }, 'EXPIRED');
      }
      return this.rest(account, state, request, qty);
    });
  }

  /**
   * What the order would do now, without doing it: filled at once as a taker when it crosses (`rests`
   * false), else its fill at its own price as a maker once the market reaches it.
   */
  async preview(account: string, request: Omit<LimitOrderRequest, 'newClientOrderId'>) {
    const { state } = await this.d.store.load(account);
    const market = this.d.marketPrice(request.symbol);
    if (market === undefined || !(market > 0)) throw exchangeErrors.noPrice();
    const filters = filtersFor(request.symbol, request.price);
    if (!filters) throw exchangeErrors.invalidSymbol();
    const limit = new Decimal(request.price);
    const rests = !crosses(request.side, limit, new Decimal(market));
    if (!rests && request.timeInForce === 'GTX') {
      throw postOnlyRefused(pairOf(request.symbol), request.price);
    }
    const slip = new Decimal(this.d.slippageBps).div(10_000);
    const taken = new Decimal(market).mul(request.side === 'BUY' ? slip.plus(1) : new Decimal(1).minus(slip));
    const price = rests ? limit : betterOf(request.side, limit, roundToTick(taken, filters.tickSize));
    const order = {
      ...this.shape({ ...request, newClientOrderId: 'preview' }, new Decimal(request.quantity), ZERO, 'GTC'),
      orderId: 'preview',
    };
    const fill = this.plan(state, order, price, rests ? 'maker' : 'taker');
    const { state: after, effects } = applyEvent(state, fill);
    const position = after.positions.get(request.symbol);
    return {
      fill,
      rests,
      marginAdded: Decimal.max(effects.marginDelta, ZERO),
      leverage: position?.leverage ?? state.leverage.get(request.symbol) ?? DEFAULT_LEVERAGE,
      liquidationPrice: position
        ? liquidationPrice(position.size, position.entryPrice, position.isolatedWallet, filters)
        : null,
    };
  }

  /**
   * The account's resting orders as this process holds them (another process's changes reach it as its
   * positions do: the account is forgotten and read again).
   */
  async open(account: string, symbol?: string): Promise<RestingOrder[]> {
    const { limits } = (await this.d.store.load(account)).state;
    return [...limits.resting.values()]
      .filter((o) => symbol === undefined || o.symbol === symbol)
      .map(toRestingOrder);
  }

  cancel(
    account: string,
    symbol: string,
    ref: { orderId?: string; clientOrderId?: string },
  ): Promise<RestingOrder | null> {
    return this.d.store.serial(account, async () => {
      let order = restingBy((await this.d.store.load(account)).state.limits, symbol, ref);
      if (!order) {
        // Placed by another process since this copy was loaded: read the ledger before saying none.
        this.d.store.invalidate(account);
        order = restingBy((await this.d.store.load(account)).state.limits, symbol, ref);
      }
      if (!order) return null;
      const at = this.d.now();
      const event = { type: 'limit-end', orderId: order.orderId, symbol, status: 'CANCELED' } as const;
      const after = await this.d.commit(account, { ...event, reason: null, at });
      return this.ended(account, after, order.orderId, at);
    });
  }

  /** An order by client id that never filled: resting, or ended without a fill. */
  async query(account: string, clientOrderId: string): Promise<OrderResult | null> {
    const { limits } = (await this.d.store.load(account)).state;
    const resting = [...limits.resting.values()].find((o) => o.clientOrderId === clientOrderId);
    if (resting) return unfilledResult(resting);
    const ended = limits.ended.findLast((o) => o.clientOrderId === clientOrderId && o.status !== 'FILLED');
    return ended ? unfilledResult(ended) : null;
  }

  /**
   * On a move of the prices: every account holding limit orders on a moved symbol (an index in memory)
   * is looked at, and those with an order the market has crossed are filled in their own turn, each
   * order looked at again there (another process may have filled it first).
   */
  check(moved: ReadonlySet<string>): Promise<void> {
    const accounts = this.index.accountsOn(moved);
    if (accounts.size === 0) return Promise.resolve();
    const checks = [...accounts].map(async (account) => {
      const { state } = await this.d.store.load(account);
      if (![...state.limits.resting.values()].some((o) => this.crossed(o, moved))) return;
      await this.d.store.serial(account, () => this.fillLocked(account, moved));
    });
    return Promise.allSettled(checks).then(() => undefined);
  }

  private crossed(order: PaperLimit, moved: ReadonlySet<string>): boolean {
    if (!moved.has(order.symbol)) return false;
    const market = this.d.marketPrice(order.symbol);
    return market !== undefined && crosses(order.side, new Decimal(order.price), new Decimal(market));
  }

  private async fillLocked(account: string, moved: ReadonlySet<string>): Promise<void> {
    const ids = [...(await this.d.store.load(account)).state.limits.resting.keys()];
    for (const orderId of ids) {
      const { state } = await this.d.store.load(account);
      const order = state.limits.resting.get(orderId);
      if (!order || !this.crossed(order, moved)) continue;
      const at = this.d.now();
      const limit = { price: order.price, timeInForce: order.timeInForce, rested: true };
      let fill: Fill;
      try {
        fill = this.plan(releaseLimit(state, orderId).state, order, new Decimal(order.price), 'maker');
      } catch (err) {
        if (!(err instanceof ExchangeError)) throw err;
        // Its fill can no longer be booked (the account changed under it): it ends, telling why.
        const event = { type: 'limit-end', orderId, symbol: order.symbol, status: 'EXPIRED' } as const;
        const after = await this.d.commit(account, { ...event, reason: err.msg, at });
        this.ended(account, after, orderId, at);
        continue;
      }
      await this.d.commitFill(account, { ...fill, limit, at });
    }
  }

  /** A crossing order: a taker fill now, at the better of its price and the market's (with slippage). */
  private async takeNow(
    account: string,
    state: PaperAccountState,
    request: LimitOrderRequest,
    qty: Decimal,
    last: Decimal,
    tick: Decimal,
  ): Promise<OrderResult> {
    const slip = new Decimal(this.d.slippageBps).div(10_000);
    const market = roundToTick(
      last.mul(request.side === 'BUY' ? slip.plus(1) : new Decimal(1).minus(slip)),
      tick,
    );
    const at = betterOf(request.side, new Decimal(request.price), market);
    const order = this.shape(request, qty, ZERO, 'GTC');
    const fill = this.plan(state, { ...order, orderId: randomUUID() }, at, 'taker');
    const limit = { price: request.price, timeInForce: request.timeInForce, rested: false };
    return this.d.commitFill(account, { ...fill, limit });
  }

  /** A limit that does not cross: it rests, its margin and maker fee held out of the free cash. */
  private async rest(
    account: string,
    state: PaperAccountState,
    request: LimitOrderRequest,
    qty: Decimal,
  ): Promise<OrderResult> {
    const price = new Decimal(request.price);
    const position = state.positions.get(request.symbol);
    const held = position?.size ?? ZERO;
    const opposite = !held.isZero() && held.gt(0) !== (request.side === 'BUY') ? held.abs() : ZERO;
    const opening = Decimal.max(qty.minus(opposite), ZERO);
    const leverage = opposite.isZero() && position ? position.leverage : leverageOf(state, request.symbol);
    const reserved = opening.mul(price).div(leverage).plus(qty.mul(price).mul(this.d.makerFeeRate));
    if (reserved.gt(state.cash)) throw exchangeErrors.marginInsufficient();
    const tif = request.timeInForce === 'GTX' ? 'GTX' : 'GTC';
    const order = { ...this.shape(request, qty, reserved, tif), orderId: randomUUID() };
    const after = await this.d.commit(account, { type: 'limit', order, at: order.time });
    this.d.emit(account, limitUpdate(order, order.time));
    this.d.tellAccount(account, after, order.time);
    return unfilledResult(order);
  }

  private shape(
    request: LimitOrderRequest,
    qty: Decimal,
    reserved: Decimal,
    timeInForce: PaperLimit['timeInForce'],
  ): PaperLimit {
    const now = this.d.now();
    return {
      orderId: '',
      clientOrderId: request.newClientOrderId,
      symbol: request.symbol,
      side: request.side,
      price: request.price,
      quantity: qty.toString(),
      timeInForce,
      reduceOnly: request.reduceOnly ?? false,
      reserved: reserved.toString(),
      time: now,
      updateTime: now,
    };
  }

  /** The fill of `order` at `price`, checked as every paper fill is (margin, minimum, leverage cap). */
  private plan(state: PaperAccountState, order: PaperLimit, price: Decimal, as: 'maker' | 'taker'): Fill {
    const input: MarketOrderInput = {
      orderId: order.orderId,
      clientOrderId: order.clientOrderId,
      symbol: order.symbol,
      side: order.side,
      size: { kind: 'quantity', qty: new Decimal(order.quantity) },
      reduceOnly: order.reduceOnly,
    };
    const feeRate = as === 'maker' ? this.d.makerFeeRate : this.d.takerFeeRate;
    const conditions: FillConditions = { markPrice: price, slippageBps: 0, takerFeeRate: feeRate };
    return planOrder(state, input, conditions).fill;
  }

  /** Tells an order's end (ORDER_TRADE_UPDATE, ACCOUNT_UPDATE) and answers it as the venue does. */
  private ended(account: string, after: PaperAccountState, orderId: string, at: number): RestingOrder | null {
    const ended = after.limits.ended.findLast((o) => o.orderId === orderId);
    if (!ended) return null;
    this.d.emit(account, limitUpdate(ended, at));
    this.d.tellAccount(account, after, at);
    return toRestingOrder(ended);
  }

  /** Whether the client id names an order of the account already: resting, ended, or filled. */
  private async known(account: string, state: PaperAccountState, clientOrderId: string): Promise<boolean> {
    const { limits } = state;
    if ([...limits.resting.values()].some((o) => o.clientOrderId === clientOrderId)) return true;
    if (limits.ended.some((o) => o.clientOrderId === clientOrderId)) return true;
    return this.d.filled(account, clientOrderId);
  }
}

const restingBy = (book: LimitBook, symbol: string, ref: { orderId?: string; clientOrderId?: string }) =>
  [...book.resting.values()].find(
    (o) =>
      o.symbol === symbol &&
      ((ref.orderId !== undefined && o.orderId === ref.orderId) ||
        (ref.clientOrderId !== undefined && o.clientOrderId === ref.clientOrderId)),
  );
