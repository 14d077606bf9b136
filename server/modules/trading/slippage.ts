import Decimal from 'decimal.js';
import type { OrderResponse, SlippageReceipt } from '../../../src/contracts/trading';
import type { ResolvedAccount } from './accounts';
import type {
  ExchangeAdapter,
  LiveExchangeAdapter,
  MarketOrderRequest,
  OrderBookDepth,
  OrderSide,
} from './exchange';
import { ExchangeError, VenueUnreachable } from './exchange-error';
import { filtersFor } from './paper/filters';
import { sizeLiveOrder } from './live/sizing';

/** How many levels of the book a side the guard reads before a market order. */
export const DEPTH_LEVELS = 50;

/** -2010 with our words: the guard refused to send the order (nothing reached the venue). */
export const SLIPPAGE_REFUSED = -2010;

/** A percentage as the user reads it: up to two decimals, no trailing zeros. */
const pct = (x: number): string => String(Math.round(x * 100) / 100);

export const slippageRefusalText = (estimated: number, cap: number): string =>
  `Estimated slippage ${pct(estimated)}% is past your cap of ${pct(cap)}%; not sent.`;

/** The fill a market order is expected to get, and the price it is measured against. */
export interface FillEstimate {
  /** The price now: the book's mid (or the last price, on paper). */
  reference: Decimal;
  /** The fill's expected average price. */
  average: Decimal;
  /** False when the book ran out before the whole amount was filled (the estimate is then a floor). */
  covered: boolean;
}

/**
 * Walks the side of the book a market order takes (the asks for a buy, the bids for a sell) until
 * `quote` USDT of notional is filled: the average price it would pay. Null on an empty side.
 */
export function walkBook(depth: OrderBookDepth, side: OrderSide, quote: Decimal.Value): FillEstimate | null {
  const levels = side === 'BUY' ? depth.asks : depth.bids;
  const [best] = levels;
  if (best === undefined) return null;
  const other = (side === 'BUY' ? depth.bids : depth.asks)[0];
  const reference = other === undefined ? new Decimal(best[0]) : new Decimal(best[0]).plus(other[0]).div(2);
  let left = new Decimal(quote);
  let qty = new Decimal(0);
  let spent = new Decimal(0);
  for (const [p, q] of levels) {
    if (!left.gt(0)) break;
    const price = new Decimal(p);
    const take = Decimal.min(new Decimal(q).mul(price), left);
    spent = spent.plus(take);
    qty = qty.plus(take.div(price));
    left = left.minus(take);
  }
  if (!qty.gt(0)) return null;
  return { reference, average: spent.div(qty), covered: !left.gt(0) };
}

/** How much worse than `reference` a fill at `price` is, in % (negative: better). */
export function adversePct(side: OrderSide, reference: Decimal.Value, price: Decimal.Value): number {
  const ref = new Decimal(reference);
  if (!ref.gt(0)) return 0;
  const diff = new Decimal(price).minus(ref).div(ref).mul(100);
  return (side === 'BUY' ? diff : diff.neg()).toDecimalPlaces(4).toNumber();
}

/** The worst price within the cap, on the tick and never past it: down for a buy, up for a sell. */
export function capPrice(side: OrderSide, reference: Decimal, capPct: number, tick: Decimal): Decimal {
  const factor = new Decimal(capPct).div(100);
  const raw = reference.mul(side === 'BUY' ? factor.plus(1) : new Decimal(1).minus(factor));
  return raw.toNearest(tick, side === 'BUY' ? Decimal.ROUND_DOWN : Decimal.ROUND_UP);
}

/** What the guard decided for one market order. */
export interface SlippagePlan {
  side: OrderSide;
  capPct: number;
  estimatedPct: number;
  reference: Decimal;
  sentAs: 'market' | 'ioc_limit';
}

/** Within the cap (and a book deep enough for the whole order): market; past it: an IOC limit at the cap. */
export function planOf(side: OrderSide, capPct: number, estimate: FillEstimate): SlippagePlan {
  const estimatedPct = Math.max(adversePct(side, estimate.reference, estimate.average), 0);
  const within = estimate.covered && estimatedPct <= capPct;
  return {
    side,
    capPct,
    estimatedPct,
    reference: estimate.reference,
    sentAs: within ? 'market' : 'ioc_limit',
  };
}

/** The receipt of a filled order: the estimate, the cap, how it was sent and what the fill did. */
export function receiptOf(
  plan: SlippagePlan,
  fill: Pick<OrderResponse, 'price' | 'quantity'>,
): SlippageReceipt {
  return {
    estimated_pct: plan.estimatedPct,
    cap_pct: plan.capPct,
    sent_as: plan.sentAs,
    actual_pct:
      fill.quantity > 0 && fill.price > 0 ? adversePct(plan.side, plan.reference, fill.price) : null,
  };
}

const isLive = (adapter: ExchangeAdapter): adapter is LiveExchangeAdapter => 'filters' in adapter;

/**
 * The guard of a market order with a slippage cap: estimates the fill from the venue's book (or, on paper,
 * from the paper exchange's own fill of it), and past the cap sends an IOC limit at the cap price instead
 * (where the venue places limit orders; elsewhere the order is refused, nothing sent).
 */
export class SlippageGuard {
  /**
   * The book reads under way, by venue and symbol: orders estimated at the same moment (a burst, or the
   * retries of one order) share one read, so they cost the venue's rate budget one request.
   */
  private readonly reading = new Map<string, Promise<OrderBookDepth>>();
  /** The user's own cap for every market order (their risk settings); null: none. */
  private defaultCap: (userId: string) => Promise<number | null> = () => Promise.resolve(null);

  constructor(
    private readonly paperFill: (
      userId: string,
      order: Omit<MarketOrderRequest, 'newClientOrderId'>,
    ) => Promise<FillEstimate>,
  ) {}

  /** Where the user's default cap is read (set once the rules module, which keeps the risk row, is up). */
  useDefault(read: (userId: string) => Promise<number | null>): void {
    this.defaultCap = read;
  }

  /**
   * A market order's guard: with a cap (`requested`, else the user's default) the fill is estimated, and
   * the order goes where {@link plan} says; `finish` puts the receipt on its answer. Without a cap the
   * order goes as it is.
   */
  async guard(
    userId: string,
    where: ResolvedAccount,
    order: MarketOrderRequest,
    requested: number | undefined,
  ): Promise<{ where: ResolvedAccount; finish: (answer: OrderResponse) => OrderResponse }> {
    const cap = requested ?? (await this.defaultCap(userId));
    if (cap === null) return { where, finish: (answer) => answer };
    const plan = await this.plan(userId, where, order, cap);
    const target = plan.sentAs === 'market' ? where : await this.iocTarget(where, plan);
    return { where: target, finish: (answer) => ({ ...answer, slippage: receiptOf(plan, answer) }) };
  }

  async plan(
    userId: string,
    where: ResolvedAccount,
    order: MarketOrderRequest,
    capPct: number,
  ): Promise<SlippagePlan> {
    const estimate = await this.estimate(userId, where, order);
    const plan = planOf(order.side, capPct, estimate);
    if (plan.sentAs === 'ioc_limit' && where.adapter.placeLimitOrder === undefined) {
      throw new ExchangeError(SLIPPAGE_REFUSED, slippageRefusalText(plan.estimatedPct, capPct));
    }
    return plan;
  }

  /**
   * The account with its market order placed as an IOC limit at the cap instead, sized from the amount
   * at the price now: the same client id, the same look-ups and Idempotency-Key as the market order.
   */
  async iocTarget(where: ResolvedAccount, plan: SlippagePlan): Promise<ResolvedAccount> {
    const adapter = where.adapter;
    const place = adapter.placeLimitOrder?.bind(adapter);
    if (place === undefined) throw new Error('an IOC limit needs a venue that places limit orders');
    const ioc = async (account: string, order: MarketOrderRequest) => {
      const filters = isLive(adapter)
        ? await adapter.filters(order.symbol)
        : filtersFor(order.symbol, plan.reference);
      if (filters === null || filters === undefined) throw new ExchangeError(-1121, 'Invalid symbol.');
      const { quantity, sizing } = sizeLiveOrder(order, plan.reference, filters);
      const result = await place(account, {
        symbol: order.symbol,
        side: order.side,
        price: capPrice(plan.side, plan.reference, plan.capPct, filters.tickSize).toFixed(),
        quantity: quantity.toFixed(),
        timeInForce: 'IOC',
        newClientOrderId: order.newClientOrderId,
      });
      return { ...result, sizing };
    };
    const proxied = new Proxy(adapter, {
      get(target, prop, receiver) {
        if (prop === 'placeMarketOrder') return ioc;
        // The paper exchange's one-statement keyed market order would bypass the IOC.
        if (prop === 'placeKeyedMarketOrder') return undefined;
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    return { ...where, adapter: proxied };
  }

  private async estimate(
    userId: string,
    where: ResolvedAccount,
    order: MarketOrderRequest,
  ): Promise<FillEstimate> {
    const quote =
      order.maxNotional === undefined
        ? new Decimal(order.quoteAmount)
        : Decimal.min(order.quoteAmount, order.maxNotional);
    if (where.adapter.depth === undefined) return this.paperFill(userId, order);
    const depth = where.adapter.depth.bind(where.adapter);
    const key = `${where.adapter.kind}\u0000${order.symbol}`;
    let read = this.reading.get(key);
    if (read === undefined) {
      // A read, safe to ask again once when the venue was slow to answer it.
      read = depth(order.symbol, DEPTH_LEVELS).catch((err: unknown) => {
        if (err instanceof VenueUnreachable) return depth(order.symbol, DEPTH_LEVELS);
        throw err;
      });
      this.reading.set(key, read);
      const done = read;
      void done.then(
        () => this.reading.delete(key),
        () => this.reading.delete(key),
      );
    }
    const book = await read;
    const estimate = walkBook(book, order.side, quote);
    if (estimate === null) throw new ExchangeError(SLIPPAGE_REFUSED, 'The order book is empty; not sent.');
    return estimate;
  }
}
