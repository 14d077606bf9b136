import { z } from 'zod';

/**
 * Binance USD-M's REST answers, one schema each, as the adapter reads them at its edge. A field the
 * adapter needs fails the parse when it is missing or not what Binance documents; a field it can do
 * without gets a default. Numbers Binance sends as decimal text stay text (read with Decimal later);
 * a JSON number in their place is taken as its text.
 */

const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;

/** `"0.004"`, `"-12.5"` (or the number 0.004): kept as decimal text. */
export const decimalText = z.union([
  z.string().regex(DECIMAL),
  z
    .number()
    .refine(Number.isFinite)
    .transform((n) => String(n)),
]);

/** A whole or fractional number, sent as a number or as decimal text (leverage, brackets). */
const numeric = z.union([z.number().refine(Number.isFinite), z.string().regex(DECIMAL).transform(Number)]);

const ms = z.number().int().nonnegative();

/** `GET /fapi/v3/positionRisk` row. */
export const PositionRiskRow = z.object({
  symbol: z.string().min(1),
  positionSide: z.string().default('BOTH'),
  positionAmt: decimalText,
  entryPrice: decimalText,
  breakEvenPrice: decimalText.default('0'),
  markPrice: decimalText,
  unRealizedProfit: decimalText,
  liquidationPrice: decimalText,
  isolatedMargin: decimalText,
  notional: decimalText,
  /** v3 has no leverage: it is the notional over this. */
  initialMargin: decimalText,
  maintMargin: decimalText.default('0'),
  /** Sent by v2 only. */
  leverage: numeric.optional(),
  updateTime: ms.default(0),
});
export const PositionRiskAnswer = z.array(PositionRiskRow);
export type PositionRiskRow = z.output<typeof PositionRiskRow>;

/** `GET /fapi/v3/balance`: one row per asset; only USDT's is read, strictly. */
export const BalanceRows = z.array(z.looseObject({ asset: z.string() }));
export const UsdtBalance = z.object({
  asset: z.literal('USDT'),
  balance: decimalText,
  availableBalance: decimalText,
  crossUnPnl: decimalText,
  updateTime: ms.default(0),
});

export const ORDER_STATUSES = [
  'NEW',
  'PARTIALLY_FILLED',
  'FILLED',
  'CANCELED',
  'REJECTED',
  'EXPIRED',
  'EXPIRED_IN_MATCH',
] as const;

/** `POST /fapi/v1/order` (newOrderRespType RESULT) and `GET /fapi/v1/order`: the parts used. */
export const OrderAnswer = z.object({
  orderId: z.union([z.number().int(), z.string().regex(/^\d+$/)]),
  clientOrderId: z.string().min(1),
  symbol: z.string().min(1),
  status: z.enum(ORDER_STATUSES),
  origQty: decimalText.optional(),
  side: z.enum(['BUY', 'SELL']),
  type: z.string().default('MARKET'),
  reduceOnly: z.boolean().default(false),
  executedQty: decimalText,
  avgPrice: decimalText,
  cumQuote: decimalText,
  updateTime: ms.default(0),
});
export type BinanceOrder = z.output<typeof OrderAnswer>;

/**
 * `GET /fapi/v1/userTrades?orderId=`: each trade's quantity (to tell whether all of the order's trades
 * are there yet), fee, the fee's asset and realised PnL.
 */
export const UserTradesAnswer = z.array(
  z.object({
    qty: decimalText,
    commission: decimalText,
    commissionAsset: z.string().optional(),
    realizedPnl: decimalText,
  }),
);
export type BinanceTrade = z.output<typeof UserTradesAnswer>[number];

/** `GET /fapi/v1/leverageBracket` (every symbol of the account). */
export const LeverageBracketAnswer = z.array(
  z.object({
    symbol: z.string().min(1),
    brackets: z
      .array(
        z.object({
          initialLeverage: numeric,
          notionalCap: numeric,
          maintMarginRatio: numeric,
        }),
      )
      .min(1),
  }),
);

/**
 * `GET /fapi/v1/exchangeInfo`: read loosely for every symbol (an odd entry for a symbol nobody trades
 * must not stop the others), then strictly for the symbol asked ({@link SymbolInfo}).
 */
export const ExchangeInfoAnswer = z.object({
  symbols: z.array(z.looseObject({ symbol: z.string() })),
});

const filter = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) =>
  z.looseObject({ filterType: z.literal(type), ...shape });

/** One symbol's exchangeInfo entry: its status and the filters an order is sized by. */
export const SymbolInfo = z.object({
  symbol: z.string(),
  status: z.string(),
  filters: z.array(z.looseObject({ filterType: z.string() })),
});
export const LotSizeFilter = (type: 'LOT_SIZE' | 'MARKET_LOT_SIZE') =>
  filter(type, { stepSize: decimalText, minQty: decimalText, maxQty: decimalText });
export const MinNotionalFilter = filter('MIN_NOTIONAL', { notional: decimalText });
export const PriceFilter = filter('PRICE_FILTER', { tickSize: decimalText });

/** `GET /fapi/v1/symbolConfig`. */
export const SymbolConfigAnswer = z.array(z.object({ symbol: z.string(), leverage: numeric }));

/** `GET /fapi/v1/commissionRate`. */
export const CommissionRateAnswer = z.object({ takerCommissionRate: decimalText });

/** `POST /fapi/v1/leverage`. */
export const LeverageAnswer = z.object({ symbol: z.string().min(1), leverage: numeric });

/** `GET /fapi/v1/ticker/price`. */
export const TickerPriceAnswer = z.object({ price: decimalText });

/** `POST /fapi/v1/listenKey`. */
export const ListenKeyAnswer = z.object({ listenKey: z.string().min(1).max(512) });

export const CONDITIONAL_TYPES = ['STOP_MARKET', 'TAKE_PROFIT_MARKET', 'TRAILING_STOP_MARKET'] as const;

export const ALGO_STATUSES = [
  'NEW',
  'TRIGGERING',
  'TRIGGERED',
  'FINISHED',
  'CANCELED',
  'EXPIRED',
  'REJECTED',
] as const;

/** An id Binance sends as a number, or as digits. */
const numericId = z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/)]);

/** A decimal Binance may leave out, or send as `""` when it has none. */
const maybeDecimal = z.union([decimalText, z.literal('')]).optional();

/**
 * `POST /fapi/v1/algoOrder`, `GET /fapi/v1/algoOrder` and each row of `GET /fapi/v1/openAlgoOrders`: a
 * conditional order of the types the adapter places. Its ids, symbol, side, type and state are needed;
 * a stop or a target needs its trigger price too. `actualOrderId` is `""` (or absent) until it fires.
 */
export const AlgoOrderAnswer = z
  .object({
    algoId: numericId,
    clientAlgoId: z.string().min(1),
    orderType: z.enum(CONDITIONAL_TYPES),
    symbol: z.string().min(1),
    side: z.enum(['BUY', 'SELL']),
    algoStatus: z.enum(ALGO_STATUSES),
    triggerPrice: maybeDecimal,
    quantity: maybeDecimal,
    closePosition: z.boolean().default(false),
    reduceOnly: z.boolean().default(false),
    callbackRate: maybeDecimal,
    activatePrice: maybeDecimal,
    actualOrderId: z.union([numericId, z.literal('')]).nullish(),
    createTime: ms.default(0),
    updateTime: ms.default(0),
  })
  .refine((o) => o.orderType === 'TRAILING_STOP_MARKET' || (o.triggerPrice ?? '') !== '', {
    path: ['triggerPrice'],
    message: 'a stop or a target names its trigger price',
  });
export type BinanceAlgoOrder = z.output<typeof AlgoOrderAnswer>;

/**
 * `GET /fapi/v1/openAlgoOrders`: a list (some gateways wrap it as `{orders: [...]}`). Each row is read
 * loosely here, then strictly when its type is one the adapter holds ({@link AlgoOrderAnswer}): a STOP
 * limit order set by hand on Binance's site must not make the others unreadable.
 */
export const OpenAlgoOrdersAnswer = z.union([
  z.array(z.looseObject({ orderType: z.string() })),
  z.object({ orders: z.array(z.looseObject({ orderType: z.string() })) }).transform((o) => o.orders),
]);

/** `DELETE /fapi/v1/algoOrder`: which order the cancel reached. */
export const AlgoCancelAnswer = z.object({ algoId: numericId, clientAlgoId: z.string().min(1) });

/**
 * `ALGO_UPDATE` on the user-data stream (read tolerantly: fields it does not use may come and go). The
 * event carries no callback rate and no activation price: a trailing stop's are null in it.
 */
export const AlgoUpdateEvent = z.object({
  e: z.literal('ALGO_UPDATE'),
  E: ms,
  T: ms.default(0),
  o: z.object({
    caid: z.string().min(1),
    aid: numericId,
    o: z.enum(CONDITIONAL_TYPES),
    s: z.string().min(1),
    S: z.enum(['BUY', 'SELL']),
    X: z.enum(ALGO_STATUSES),
    q: maybeDecimal,
    tp: maybeDecimal,
    cp: z.boolean().default(false),
    ai: z.union([numericId, z.literal('')]).nullish(),
    rm: z.string().nullish(),
  }),
});
