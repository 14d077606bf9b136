import Decimal from 'decimal.js';
import { describeSizing, sizeOrder, type Sizing } from '../../../../src/contracts/sizing';
import { pairOf } from '../../../../src/contracts/trading';
import type { MarketOrderRequest, OrderSizing } from '../exchange';
import { ExchangeError, exchangeErrors } from '../exchange-error';
import { applyEvent, leverageOf, type LedgerEvent, type PaperAccountState } from './account';
import { filtersFor, type SymbolFilters } from './filters';
import { floorToStep, roundToTick, ZERO } from './math';

export interface FillConditions {
  /** The price the order fills against (last or mark). */
  markPrice: Decimal;
  /** Slippage against the taker, in basis points (2 = 0.02 %). */
  slippageBps: number;
  /** Taker fee rate (0.0005 = 0.05 %). */
  takerFeeRate: Decimal;
}

export type OrderSize =
  /**
   * This many USDT of notional (the spec's "amount"), sized to the nearest lot step by the shared
   * `sizeOrder`; never worth more than `maxNotional` (the user's fat-finger cap) when it is given.
   */
  | { kind: 'quote'; amount: Decimal; maxNotional?: Decimal | null }
  /** Exactly this quantity (closing a position). */
  | { kind: 'quantity'; qty: Decimal };

export interface MarketOrderInput {
  orderId: string;
  clientOrderId: string;
  symbol: string;
  side: 'BUY' | 'SELL';
  size: OrderSize;
  reduceOnly: boolean;
}

type Fill = Extract<LedgerEvent, { type: 'fill' }>;

/** A planned fill, and for an order given in USDT how its amount was sized. */
export interface PlannedOrder {
  fill: Fill;
  sizing: Extract<Sizing, { ok: true }> | null;
  /** The sentence that says how the fill differs from the amount asked; null when it does not. */
  note: string | null;
}

/** {@link planOrder}'s fill alone. */
export function planMarketOrder(
  state: PaperAccountState,
  input: MarketOrderInput,
  market: FillConditions,
): Fill {
  return planOrder(state, input, market).fill;
}

/** Binance's code for each way sizing refuses an order. */
export const REFUSAL_CODE: Record<Exclude<Sizing, { ok: true }>['refusal'], number> = {
  'below-minimum': -4164,
  'cap-below-minimum': -4164,
  'margin-below-minimum': -2019,
  'above-margin': -2019,
  'above-max-quantity': -2027,
  'no-price': -1003,
};

/**
 * Validates a market order against the symbol's filters and the account, the way Binance does, and
 * returns the fill it would make. An order in USDT is sized by the shared `sizeOrder` at the fill
 * price, capped by what the free margin pays for. Throws an ExchangeError otherwise, whose message is
 * the sentence the user reads.
 */
export function planOrder(
  state: PaperAccountState,
  input: MarketOrderInput,
  market: FillConditions,
): PlannedOrder {
  const filters = filtersFor(input.symbol, market.markPrice);
  if (!filters) throw exchangeErrors.invalidSymbol();
  if (!market.markPrice.gt(0)) throw exchangeErrors.noPrice();
  const slip = new Decimal(market.slippageBps).div(10_000);
  const price = roundToTick(
    market.markPrice.mul(input.side === 'BUY' ? slip.plus(1) : new Decimal(1).minus(slip)),
    filters.tickSize,
  );

  const position = state.positions.get(input.symbol);
  const held = position?.size ?? ZERO;
  const reducing = !held.isZero() && held.gt(0) !== (input.side === 'BUY');

  let sized: PlannedOrder['sizing'] = null;
  let qty: Decimal;
  if (input.size.kind === 'quote') {
    const leverage = !reducing && position ? position.leverage : leverageOf(state, input.symbol);
    // Margin and fee of a new exposure come out of the free cash; a reversal first frees the held size.
    const perNotional = new Decimal(1).div(leverage).plus(market.takerFeeRate);
    const marginNotional = Decimal.max(state.cash, ZERO)
      .div(perNotional)
      .plus(reducing ? held.abs().mul(price) : ZERO);
    const sizing = sizeOrder({
      amount: input.size.amount,
      price,
      filters,
      caps: { maxNotional: input.size.maxNotional ?? null, marginNotional },
    });
    if (!sizing.ok) {
      throw new ExchangeError(
        REFUSAL_CODE[sizing.refusal],
        describeSizing(pairOf(input.symbol), sizing) ?? 'Order refused.',
      );
    }
    sized = sizing;
    qty = new Decimal(sizing.quantity);
  } else {
    qty = floorToStep(input.size.qty, filters.stepSize);
  }
  if (input.reduceOnly) {
    if (!reducing) throw exchangeErrors.reduceOnlyRejected();
    qty = Decimal.min(qty, held.abs());
  }
  if (!qty.gt(0)) {
    if (input.reduceOnly) throw exchangeErrors.quantityTooSmall();
    throw exchangeErrors.minNotional(pairOf(input.symbol), filters.minNotional.toString());
  }
  if (!input.reduceOnly && (qty.lt(filters.minQty) || qty.mul(price).lt(filters.minNotional))) {
    throw exchangeErrors.minNotional(pairOf(input.symbol), filters.minNotional.toString());
  }
  if (qty.gt(filters.maxQty)) throw exchangeErrors.maxPosition();

  const fee = qty.mul(price).mul(market.takerFeeRate);
  const fill = {
    type: 'fill' as const,
    orderId: input.orderId,
    clientOrderId: input.clientOrderId,
    reduceOnly: input.reduceOnly,
    symbol: input.symbol,
    side: input.side,
    qty: qty.toString(),
    price: price.toString(),
    fee: fee.toString(),
  };

  const after = applyEvent(state, fill).state;
  if (after.cash.lt(0)) throw exchangeErrors.marginInsufficient();
  const opened = after.positions.get(input.symbol);
  if (opened && !reducing)
    checkLeverageCap(opened.size.abs().mul(opened.entryPrice), leverageOf(state, input.symbol), filters);
  if (opened && reducing && opened.size.gt(0) !== held.gt(0)) {
    checkLeverageCap(opened.size.abs().mul(opened.entryPrice), opened.leverage, filters);
  }
  return { fill, sizing: sized, note: sized ? describeSizing(pairOf(input.symbol), sized) : null };
}

/** The largest notional a leverage allows: the cap of the last bracket whose max leverage is at least it. */
export function maxNotionalFor(leverage: number, filters: SymbolFilters): Decimal {
  let cap = ZERO;
  for (const b of filters.brackets) if (b.maxLeverage >= leverage) cap = b.cap;
  return cap;
}

function checkLeverageCap(notional: Decimal, leverage: number, filters: SymbolFilters): void {
  if (notional.gt(maxNotionalFor(leverage, filters))) throw exchangeErrors.maxPosition();
}

/** Validates a leverage choice for a symbol: 1 up to the first bracket's maximum. */
export function checkLeverage(symbol: string, leverage: number): void {
  const filters = filtersFor(symbol);
  if (!filters) throw exchangeErrors.invalidSymbol();
  const max = filters.brackets[0]?.maxLeverage ?? 1;
  if (!Number.isInteger(leverage) || leverage < 1 || leverage > max) throw exchangeErrors.invalidLeverage();
}

/** A market order's USDT amount (and its fat-finger cap) as the size to plan. */
export function quoteSize(request: Pick<MarketOrderRequest, 'quoteAmount' | 'maxNotional'>): OrderSize {
  return {
    kind: 'quote',
    amount: new Decimal(request.quoteAmount),
    maxNotional: request.maxNotional === undefined ? null : new Decimal(request.maxNotional),
  };
}

/** How the plan sized the order, as the order's answer tells it. */
export function sizingOf(planned: PlannedOrder): OrderSizing | undefined {
  if (!planned.sizing) return undefined;
  return {
    requested: planned.sizing.requested.toString(),
    adjustment: planned.sizing.adjustment,
    note: planned.note,
  };
}
