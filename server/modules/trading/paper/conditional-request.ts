import Decimal from 'decimal.js';
import type { ConditionalOrderRequest } from '../exchange';
import { ExchangeError, exchangeErrors } from '../exchange-error';
import type { PaperConditional, PlacedConditional } from './conditionals';
import type { SymbolFilters } from './filters';

/**
 * How Binance's algo service refuses a conditional order (`POST /fapi/v1/algoOrder`), code and text as it
 * answers them, so that a refusal on paper reads as the same refusal live.
 */
export const conditionalErrors = {
  illegalClientAlgoId: () =>
    new ExchangeError(
      -1100,
      "Illegal characters found in parameter 'clientAlgoId'; legal range is '^[\\.A-Z\\:/a-z0-9_-]{1,36}$'.",
    ),
  mandatory: (param: string) =>
    new ExchangeError(-1102, `Mandatory parameter '${param}' was not sent, was empty/null, or malformed.`),
  notRequired: (param: string) => new ExchangeError(-1106, `Parameter '${param}' sent when not required.`),
  precision: () => new ExchangeError(-1111, 'Precision is over the maximum defined for this asset.'),
  /** Not in Binance's published list; the code and text its futures API answers an out-of-range rate with. */
  callbackRate: () => new ExchangeError(-2007, 'Invalid callBack rate.'),
  wouldTrigger: () => new ExchangeError(-2021, 'Order would immediately trigger.'),
  stopPriceNotPositive: () => new ExchangeError(-4006, 'Stop price less than zero.'),
  quantityAboveMax: () => new ExchangeError(-4005, 'Quantity greater than max quantity.'),
  notOnTick: () => new ExchangeError(-4014, 'Price not increased by tick size.'),
  duplicate: () => new ExchangeError(-4116, 'ClientOrderId is duplicated.'),
  activationPrice: () => new ExchangeError(-4135, 'Invalid activation price.'),
  quantityWithClosePosition: () =>
    new ExchangeError(-4137, 'Quantity must be zero with closePosition equals true.'),
} as const;

const CLIENT_ID = /^[.A-Z:/a-z0-9_-]{1,36}$/;
const DECIMAL = /^(\d+(\.\d*)?|\.\d+)$/;
/** Binance's callbackRate bounds for TRAILING_STOP_MARKET, in percent. */
export const CALLBACK_RATE_MIN = new Decimal('0.1');
export const CALLBACK_RATE_MAX = new Decimal('10');

/** The request as an order, without the ids and the mark it still needs. */
export type ConditionalShape = Omit<PlacedConditional, 'algoId' | 'extreme'>;

/**
 * Reads a request the way Binance validates one, before it looks at the account or the mark: the
 * client id, which parameters the type takes, numbers that are numbers, on the symbol's tick and step,
 * and a callback rate within 0.1–10 %. Throws the ExchangeError Binance would answer.
 */
export function readConditionalRequest(
  request: ConditionalOrderRequest,
  filters: SymbolFilters | undefined,
): ConditionalShape {
  if (!CLIENT_ID.test(request.clientAlgoId)) throw conditionalErrors.illegalClientAlgoId();
  if (!filters) throw exchangeErrors.invalidSymbol();
  const trailing = request.type === 'TRAILING_STOP_MARKET';
  const closePosition = request.closePosition === true;
  if (trailing) {
    if (request.triggerPrice !== undefined) throw conditionalErrors.notRequired('triggerPrice');
    if (closePosition) throw conditionalErrors.notRequired('closePosition');
  } else {
    if (request.callbackRate !== undefined) throw conditionalErrors.notRequired('callbackRate');
    if (request.activatePrice !== undefined) throw conditionalErrors.notRequired('activatePrice');
  }
  if (closePosition && request.quantity !== undefined) throw conditionalErrors.quantityWithClosePosition();

  const triggerPrice = trailing ? null : price(request.triggerPrice, 'triggerPrice', filters);
  const activatePrice =
    request.activatePrice === undefined ? null : price(request.activatePrice, 'activatePrice', filters);
  let callbackRate: string | null = null;
  if (trailing) {
    const rate = decimal(request.callbackRate, 'callbackRate');
    if (rate.lt(CALLBACK_RATE_MIN) || rate.gt(CALLBACK_RATE_MAX)) throw conditionalErrors.callbackRate();
    callbackRate = rate.toString();
  }
  let quantity: string | null = null;
  if (!closePosition) {
    const qty = decimal(request.quantity, 'quantity');
    if (!qty.gt(0)) throw exchangeErrors.quantityTooSmall();
    if (!qty.mod(filters.stepSize).isZero()) throw conditionalErrors.precision();
    if (qty.gt(filters.maxQty)) throw conditionalErrors.quantityAboveMax();
    quantity = qty.toString();
  }
  return {
    clientAlgoId: request.clientAlgoId,
    symbol: request.symbol,
    side: request.side,
    type: request.type,
    triggerPrice,
    quantity,
    closePosition,
    callbackRate,
    activatePrice,
  };
}

/**
 * Refuses an order the mark would fire at once (-2021), as Binance does: a SELL stop at or above the
 * mark, a SELL take-profit at or below it, a SELL trailing stop whose activatePrice the mark has reached
 * already (a BUY the other way round).
 */
export function checkNotImmediate(order: ConditionalShape, mark: Decimal): void {
  const sell = order.side === 'SELL';
  if (order.type === 'TRAILING_STOP_MARKET') {
    if (order.activatePrice === null) return;
    const activate = new Decimal(order.activatePrice);
    if (sell ? activate.lte(mark) : activate.gte(mark)) throw conditionalErrors.wouldTrigger();
    return;
  }
  const trigger = new Decimal(order.triggerPrice ?? 0);
  const fallsTo = order.type === 'STOP_MARKET' ? sell : !sell;
  if (fallsTo ? trigger.gte(mark) : trigger.lte(mark)) throw conditionalErrors.wouldTrigger();
}

/** Another resting order of the account holds this client id: Binance's ids are unique among open orders. */
export function checkUnique(resting: Iterable<PaperConditional>, clientAlgoId: string): void {
  for (const order of resting) if (order.clientAlgoId === clientAlgoId) throw conditionalErrors.duplicate();
}

function decimal(value: string | undefined, param: string): Decimal {
  if (value === undefined || !DECIMAL.test(value)) throw conditionalErrors.mandatory(param);
  return new Decimal(value);
}

function price(value: string | undefined, param: 'triggerPrice' | 'activatePrice', filters: SymbolFilters) {
  const p = decimal(value, param);
  if (!p.gt(0)) {
    throw param === 'triggerPrice'
      ? conditionalErrors.stopPriceNotPositive()
      : conditionalErrors.activationPrice();
  }
  if (!p.mod(filters.tickSize).isZero()) throw conditionalErrors.notOnTick();
  return p.toString();
}
