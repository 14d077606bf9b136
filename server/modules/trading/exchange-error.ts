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
  reduceOnlyRejected: () => new ExchangeError(-2022, 'ReduceOnly Order is rejected.'),
  maxPosition: () => new ExchangeError(-2027, 'Exceeded the maximum allowable position at current leverage.'),
  minNotional: (notional: string) =>
    new ExchangeError(
      -4164,
      `Order's notional must be no smaller than ${notional} (unless you choose reduce only).`,
    ),
  quantityTooSmall: () => new ExchangeError(-4003, 'Quantity less than or equal to zero.'),
  invalidLeverage: () => new ExchangeError(-4028, 'Leverage is not valid'),
  noPrice: () => new ExchangeError(-1003, 'No price is available for this symbol right now.'),
} as const;
