import Decimal from 'decimal.js';
import { findSymbol } from './symbols';

/**
 * Order sizing: how a USDT amount becomes a quantity the exchange accepts, shared by the server's
 * order path (paper exchange, and any live adapter) and the browser's previews, so that what the user
 * is told before an order is what fills (up to the price moving in between).
 *
 * Futures take a quantity, not a USDT total, and the quantity must be a multiple of the symbol's lot
 * step; the step can be worth a lot (0.001 BTC ≈ 100 USDT). The amount is therefore sized to the
 * NEAREST step, so the order is worth within half a step of what was asked, except where a limit binds:
 * - an amount at or above the symbol's minimum always passes: it is raised to the smallest quantity
 *   worth at least the minimum when the nearest step falls below it;
 * - the order is never worth more than the caller's caps (the fat-finger cap, what the free margin
 *   pays for): it is rounded down to stay within them.
 * Every adjustment and refusal says why, in one set of sentences ({@link describeSizing}).
 */

/** Exact decimals, independent of how the caller configured its own Decimal. */
const D = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_EVEN });
type Dec = InstanceType<typeof D>;

/** The lot and notional filters of a symbol (Binance exchangeInfo: MARKET_LOT_SIZE and MIN_NOTIONAL). */
export interface LotFilters {
  /** MARKET_LOT_SIZE.stepSize: quantities are multiples of it. */
  stepSize: Decimal.Value;
  /** MARKET_LOT_SIZE.minQty (a multiple of the step). */
  minQty: Decimal.Value;
  /** MARKET_LOT_SIZE.maxQty. */
  maxQty: Decimal.Value;
  /** MIN_NOTIONAL.notional: the smallest order, in USDT. */
  minNotional: Decimal.Value;
}

/** Upper bounds on an order's notional, in USDT; leave one out (or null) when it does not apply. */
export interface SizingCaps {
  /** The user's fat-finger cap: the order is never worth more. */
  maxNotional?: Decimal.Value | null;
  /** What the free margin pays for at the symbol's leverage, fees included. */
  marginNotional?: Decimal.Value | null;
}

export interface SizingRequest {
  /** The USDT total the user asked for. */
  amount: Decimal.Value;
  /** The price the order is sized at (the expected fill price). */
  price: Decimal.Value;
  filters: LotFilters;
  caps?: SizingCaps;
}

/** How an accepted order differs from the amount asked. */
export type SizingAdjustment =
  /** The amount is a whole number of steps. */
  | 'exact'
  /** Rounded to the nearest step (within half a step). */
  | 'nearest'
  /** Rounded down to stay within the fat-finger cap. */
  | 'down-to-cap'
  /** Rounded down to what the free margin pays for. */
  | 'down-to-margin'
  /** Raised to the smallest quantity worth the minimum order. */
  | 'up-to-minimum';

/** Why an order cannot be sized. */
export type SizingRefusal =
  /** The amount is below the symbol's minimum order. */
  | 'below-minimum'
  /** The amount is above what the free margin pays for. */
  | 'above-margin'
  /** A cap is below the smallest order the symbol allows. */
  | 'cap-below-minimum'
  | 'margin-below-minimum'
  /** More than the largest quantity of one market order. */
  | 'above-max-quantity'
  /** No price to size at. */
  | 'no-price';

/** What is known about the symbol at this price, whatever the outcome. */
export interface SizingFacts {
  requested: Dec;
  price: Dec;
  stepSize: Dec;
  /** What one step is worth at this price. */
  stepNotional: Dec;
  minNotional: Dec;
  /** The smallest accepted quantity (minQty, or more to reach the minimum notional). */
  smallestQuantity: Dec;
  smallestNotional: Dec;
  /** The two whole-step amounts around the amount asked (equal when it is one). */
  below: Dec;
  above: Dec;
}

export type Sizing = SizingFacts &
  (
    | { ok: true; quantity: Dec; notional: Dec; adjustment: SizingAdjustment; cap: Dec | null }
    | { ok: false; refusal: SizingRefusal; /** The bound that refused it, in USDT. */ limit: Dec | null }
  );

/**
 * A value as this module's Decimal. A Decimal (of any configuration) or a number is taken digit for
 * digit, as its text would be: the constructor copies a Decimal's digits without rounding them.
 */
const dec = (value: Decimal.Value): Dec => (value instanceof D ? value : new D(value));

/**
 * Sizes a USDT amount into a quantity for one market order.
 *
 * `sizeOrder({ amount: 200, price: 100_700, filters: { stepSize: '0.001', minQty: '0.001', maxQty: '120',
 * minNotional: '100' } })` → `{ ok: true, quantity: 0.002, notional: 201.4, adjustment: 'nearest' }`.
 *
 * Pure and exact (decimal arithmetic): the same inputs give the same quantity on the server and in
 * the browser. Guarantees, for an accepted order: the quantity is a multiple of the step and at least
 * minQty; the notional is at least the minimum and never above a cap; and when no cap and no minimum
 * binds (`exact` or `nearest`), it is within half a step's notional of the amount asked.
 */
export function sizeOrder(request: SizingRequest): Sizing {
  const requested = dec(request.amount);
  const price = dec(request.price);
  const stepSize = dec(request.filters.stepSize);
  const minNotional = dec(request.filters.minNotional);
  const minQty = dec(request.filters.minQty);
  const maxQty = dec(request.filters.maxQty);
  const stepNotional = stepSize.mul(price);
  const zero = new D(0);
  if (!price.gt(0) || !stepSize.gt(0)) {
    const facts = {
      requested,
      price,
      stepSize,
      stepNotional,
      minNotional,
      smallestQuantity: minQty,
      smallestNotional: zero,
      below: zero,
      above: zero,
    };
    return { ...facts, ok: false, refusal: 'no-price', limit: null };
  }
  // Notionals are divided by one step's notional (exact: a product of two short decimals), one division
  // per quantity rather than one by the price and another by the step.
  const stepsIn = (notional: Dec): Dec => notional.div(stepNotional);
  const floorQty = (notional: Dec): Dec => stepsIn(notional).floor().mul(stepSize);
  const smallestQuantity = Decimal.max(
    minQty.div(stepSize).ceil().mul(stepSize),
    stepsIn(minNotional).ceil().mul(stepSize),
  ) as Dec;
  const requestedSteps = stepsIn(requested);
  const belowQty = requestedSteps.floor().mul(stepSize);
  const aboveQty = belowQty.mul(price).eq(requested) ? belowQty : belowQty.plus(stepSize);
  const facts: SizingFacts = {
    requested,
    price,
    stepSize,
    stepNotional,
    minNotional,
    smallestQuantity,
    smallestNotional: smallestQuantity.mul(price),
    below: belowQty.mul(price),
    above: aboveQty.mul(price),
  };
  const refuse = (refusal: SizingRefusal, limit: Dec | null): Sizing => ({
    ...facts,
    ok: false,
    refusal,
    limit,
  });

  if (requested.lt(minNotional)) return refuse('below-minimum', minNotional);
  const marginCap = optional(request.caps?.marginNotional);
  if (marginCap !== null && requested.gt(marginCap)) return refuse('above-margin', marginCap);

  let quantity = requestedSteps.toDecimalPlaces(0, D.ROUND_HALF_UP).mul(stepSize);
  let adjustment: SizingAdjustment = quantity.mul(price).eq(requested) ? 'exact' : 'nearest';
  if (quantity.lt(smallestQuantity)) {
    quantity = smallestQuantity;
    adjustment = 'up-to-minimum';
  }

  const fatFinger = optional(request.caps?.maxNotional);
  const binding = [
    { cap: fatFinger, down: 'down-to-cap' as const, tooLow: 'cap-below-minimum' as const },
    { cap: marginCap, down: 'down-to-margin' as const, tooLow: 'margin-below-minimum' as const },
  ]
    .filter((c): c is typeof c & { cap: Dec } => c.cap !== null && quantity.mul(price).gt(c.cap))
    .sort((a, b) => a.cap.comparedTo(b.cap))[0];
  let cap: Dec | null = null;
  if (binding) {
    quantity = floorQty(binding.cap);
    adjustment = binding.down;
    cap = binding.cap;
    if (quantity.lt(smallestQuantity)) return refuse(binding.tooLow, binding.cap);
  }
  if (quantity.gt(maxQty)) return refuse('above-max-quantity', maxQty.mul(price));
  return { ...facts, ok: true, quantity, notional: quantity.mul(price), adjustment, cap };
}

function optional(value: Decimal.Value | null | undefined): Dec | null {
  return value === null || value === undefined ? null : dec(value);
}

/** USDT with two decimals and thousands separators, exact (no float rounding): `1,234.50`. */
export function usdt(value: Decimal.Value): string {
  const fixed = dec(value).toFixed(2, D.ROUND_HALF_UP);
  const [whole = '0', cents = '00'] = fixed.split('.');
  const sign = whole.startsWith('-') ? '-' : '';
  const digits = sign ? whole.slice(1) : whole;
  return `${sign}${digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${cents}`;
}

/** A USDT amount as the user typed it: `200`, `0.5`, `25,000` (no trailing zeros). */
function asked(value: Dec): string {
  const [whole = '0', frac] = value.toFixed().split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return frac === undefined ? grouped : `${grouped}.${frac}`;
}

/** The base asset of a pair (`BTC/USDT` → `BTC`). */
const baseOf = (pair: string): string => pair.split('/')[0] ?? pair;

/** `0.002 BTC ≈ 201.40 USDT` */
export function sizeText(pair: string, quantity: Decimal.Value, notional: Decimal.Value): string {
  return `${dec(quantity).toFixed()} ${baseOf(pair)} ≈ ${usdt(notional)} USDT`;
}

/** `BTC trades in steps of 0.001 BTC ≈ 100.70 USDT` */
function stepsText(pair: string, s: SizingFacts): string {
  return `${baseOf(pair)} trades in steps of ${s.stepSize.toFixed()} ${baseOf(pair)} ≈ ${usdt(s.stepNotional)} USDT`;
}

/** `The minimum order for BTC/USDT is 100 USDT.` */
export function minimumText(pair: string, minNotional: Decimal.Value): string {
  return `The minimum order for ${pair} is ${asked(dec(minNotional))} USDT.`;
}

/**
 * Whether rounding to the nearest step changed the amount enough to say so: by 1 USDT or more, or by
 * 0.5 % of the amount. Below that (0.01 USDT on a DOGE order) the fill's own numbers say it all.
 */
export function noticeable(s: Extract<Sizing, { ok: true }>): boolean {
  const gap = s.notional.minus(s.requested).abs();
  return gap.gte(1) || gap.gte(s.requested.mul('0.005'));
}

/**
 * The sentence that says why an order is not worth what was asked, or why it is refused; null for an
 * exact order, or one the nearest step barely moved ({@link noticeable}). Every entry point (previews,
 * confirmations, refusals, the CLI) shows this text.
 */
export function describeSizing(pair: string, s: Sizing): string | null {
  const wanted = `${asked(s.requested)} USDT`;
  if (!s.ok) {
    switch (s.refusal) {
      case 'no-price':
        return 'No price is available for this symbol right now.';
      case 'below-minimum': {
        const buys = s.smallestNotional.gt(s.minNotional)
          ? ` At this price that buys ${sizeText(pair, s.smallestQuantity, s.smallestNotional)} (${stepsText(pair, s)}).`
          : '';
        return `${minimumText(pair, s.minNotional)}${buys}`;
      }
      case 'above-margin':
        return `Margin is insufficient: your free margin pays for at most ${usdt(s.limit ?? 0)} USDT of ${pair}, not ${wanted}.`;
      case 'cap-below-minimum':
        return `Your fat-finger cap of ${asked(s.limit ?? new D(0))} USDT is below the smallest ${pair} order at this price, ${sizeText(pair, s.smallestQuantity, s.smallestNotional)}.`;
      case 'margin-below-minimum':
        return `Margin is insufficient: your free margin pays for ${usdt(s.limit ?? 0)} USDT, less than the smallest ${pair} order at this price, ${sizeText(pair, s.smallestQuantity, s.smallestNotional)}.`;
      case 'above-max-quantity':
        return `That is more than the largest ${pair} market order, ${usdt(s.limit ?? 0)} USDT at this price.`;
    }
  }
  const got = sizeText(pair, s.quantity, s.notional);
  switch (s.adjustment) {
    case 'exact':
      return null;
    case 'nearest':
      if (!noticeable(s)) return null;
      return `Not exactly ${wanted}: ${stepsText(pair, s)} (${usdt(s.below)} or ${usdt(s.above)}), so the order is the nearest, ${got}.`;
    case 'up-to-minimum':
      return `Raised from ${wanted} to ${got}: ${minimumText(pair, s.minNotional).slice(0, -1)} and ${stepsText(pair, s)}.`;
    case 'down-to-cap':
      return `Rounded down to ${got} to stay within your fat-finger cap of ${asked(s.cap ?? new D(0))} USDT (${stepsText(pair, s)}).`;
    case 'down-to-margin':
      return `Rounded down to ${got}: your free margin pays for at most ${usdt(s.cap ?? 0)} USDT (${stepsText(pair, s)}).`;
  }
}

/** Lot filters of the majors (Binance USD-M snapshot); other symbols get a default by price. */
const KNOWN: Record<string, { step: string; minQty: string; maxQty: string; minNotional: string }> = {
  BTCUSDT: { step: '0.001', minQty: '0.001', maxQty: '120', minNotional: '100' },
  ETHUSDT: { step: '0.001', minQty: '0.001', maxQty: '2000', minNotional: '20' },
  BNBUSDT: { step: '0.01', minQty: '0.01', maxQty: '2000', minNotional: '5' },
  SOLUSDT: { step: '0.01', minQty: '0.01', maxQty: '5000', minNotional: '5' },
  XRPUSDT: { step: '0.1', minQty: '0.1', maxQty: '2000000', minNotional: '5' },
  DOGEUSDT: { step: '1', minQty: '1', maxQty: '30000000', minNotional: '5' },
  ADAUSDT: { step: '1', minQty: '1', maxQty: '5000000', minNotional: '5' },
  LINKUSDT: { step: '0.01', minQty: '0.01', maxQty: '100000', minNotional: '5' },
  LTCUSDT: { step: '0.001', minQty: '0.001', maxQty: '10000', minNotional: '20' },
  BCHUSDT: { step: '0.001', minQty: '0.001', maxQty: '10000', minNotional: '20' },
};

/** For symbols without a bundled lot filter: a step worth between 0.1 and 1 USDT at the price, as Binance's tables do. */
export function defaultStep(referencePrice: Decimal.Value): Decimal {
  const exponent = Math.floor(Math.log10(Math.max(dec(referencePrice).toNumber(), 1e-8)));
  return new D(10).pow(Math.min(3, Math.max(-3, -exponent)));
}

/**
 * The lot filters the product trades a supported symbol with (`BTCUSDT`), or undefined for an unknown
 * one. `referencePrice` (the current price) sizes the step of symbols without a bundled filter.
 */
export function lotFiltersFor(
  symbol: string,
  referencePrice: Decimal.Value = 1,
): { stepSize: Decimal; minQty: Decimal; maxQty: Decimal; minNotional: Decimal } | undefined {
  if (!findSymbol(symbol)) return undefined;
  const known = KNOWN[symbol];
  const step = defaultStep(referencePrice);
  return {
    stepSize: new D(known?.step ?? step),
    minQty: new D(known?.minQty ?? step),
    maxQty: new D(known?.maxQty ?? '100000000'),
    minNotional: new D(known?.minNotional ?? '5'),
  };
}

/** The minimum order of a symbol in USDT (MIN_NOTIONAL), or undefined for an unknown symbol. */
export function minimumOrder(symbol: string): number | undefined {
  return lotFiltersFor(symbol)?.minNotional.toNumber();
}
