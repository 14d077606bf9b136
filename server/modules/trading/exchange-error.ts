import { minimumText } from '../../../src/contracts/sizing';

/**
 * An exchange's refusal, with Binance's code and message (`{"code":-2019,"msg":"Margin is insufficient."}`).
 * The paper exchange raises the same codes and texts as Binance so that the rest of the product (and the
 * user) sees one vocabulary whichever exchange filled the order.
 */
export class ExchangeError extends Error {
  override name = 'ExchangeError';
  constructor(
    readonly code: number,
    readonly msg: string,
  ) {
    super(msg);
  }
}

export const exchangeErrors = {
  invalidSymbol: () => new ExchangeError(-1121, 'Invalid symbol.'),
  marginInsufficient: () => new ExchangeError(-2019, 'Margin is insufficient.'),
  /** Binance says "ReduceOnly Order is rejected."; the product has no reduce-only orders, only closes. */
  reduceOnlyRejected: () => new ExchangeError(-2022, 'There is no open position to close.'),
  maxPosition: () => new ExchangeError(-2027, 'Exceeded the maximum allowable position at current leverage.'),
  /** Binance's text offers "reduce only", which the product does not have: this one names the minimum. */
  minNotional: (pair: string, notional: string) => new ExchangeError(-4164, minimumText(pair, notional)),
  quantityTooSmall: () => new ExchangeError(-4003, 'Quantity less than or equal to zero.'),
  invalidLeverage: () => new ExchangeError(-4028, 'Leverage is not valid'),
  noPrice: () => new ExchangeError(-1003, 'No price is available for this symbol right now.'),
} as const;

/**
 * The order may or may not have reached the exchange (a timeout, -1007, a connection cut after sending):
 * it must be looked up by its client order id before anything is sent again.
 */
export class OrderOutcomeUnknown extends Error {
  override name = 'OrderOutcomeUnknown';
  constructor(readonly reason: string) {
    super(reason);
  }
}
