import { z } from 'zod';
import { decimalText } from '../binance-answers';

/**
 * Bybit v5's `result` objects, one schema each, as the adapter reads them at its edge (the envelope is
 * read by the client). A field the adapter needs fails the parse when it is missing or not what Bybit
 * documents; one it can do without gets a default. Bybit sends numbers as decimal text, and `""` where a
 * figure has no value (an order's avgPrice before a fill, a position's liqPrice out of range).
 */

/** Decimal text, or `""` for none (read as null). */
const maybeText = z.union([decimalText, z.literal('')]).transform((v) => (v === '' ? null : v));
/** Decimal text Bybit may send as `""` or leave out: `"0"` then. */
const zeroText = z
  .union([decimalText, z.literal('')])
  .optional()
  .transform((v) => (v === undefined || v === '' ? '0' : v));
/** Milliseconds as digits (Bybit's createdTime, updatedTime, execTime). */
const msText = z.union([z.string().regex(/^\d+$/).transform(Number), z.number().int().nonnegative()]);
const page = <T extends z.ZodType>(row: T) =>
  z.object({ list: z.array(row), nextPageCursor: z.string().optional().default('') });

/** One linear instrument of `GET /v5/market/instruments-info?category=linear`. */
export const Instrument = z.object({
  symbol: z.string().min(1),
  status: z.string(),
  settleCoin: z.string().optional(),
  lotSizeFilter: z.object({
    qtyStep: decimalText,
    minOrderQty: decimalText,
    maxMktOrderQty: decimalText.optional(),
    maxOrderQty: decimalText.optional(),
    minNotionalValue: decimalText.default('0'),
  }),
  priceFilter: z.object({ tickSize: decimalText }),
  leverageFilter: z.object({ maxLeverage: decimalText }),
});
/** The page, each row read loosely: an odd row for a symbol nobody trades must not stop the others. */
export const InstrumentsPage = page(z.looseObject({ symbol: z.string() }));

/** `GET /v5/market/tickers?category=linear&symbol=`. */
export const TickersAnswer = z.object({
  list: z.array(z.object({ symbol: z.string(), lastPrice: decimalText, markPrice: decimalText.optional() })),
});

/** `POST /v5/order/create`: only that Bybit accepted it. */
export const OrderAccepted = z.object({ orderId: z.string().min(1), orderLinkId: z.string() });

export const BYBIT_ORDER_STATUSES = [
  'New',
  'PartiallyFilled',
  'Untriggered',
  'Rejected',
  'PartiallyFilledCanceled',
  'Filled',
  'Cancelled',
  'Triggered',
  'Deactivated',
] as const;
export type BybitOrderStatus = (typeof BYBIT_ORDER_STATUSES)[number];

/** One order of `GET /v5/order/realtime` or `/v5/order/history`: the parts the adapter reads. */
export const OrderRow = z.object({
  orderId: z.string().min(1),
  orderLinkId: z.string(),
  symbol: z.string().min(1),
  side: z.enum(['Buy', 'Sell']),
  orderType: z.string(),
  orderStatus: z.enum(BYBIT_ORDER_STATUSES),
  cancelType: z.string().default(''),
  qty: decimalText,
  cumExecQty: zeroText,
  cumExecValue: zeroText,
  avgPrice: zeroText,
  reduceOnly: z.boolean().default(false),
  stopOrderType: z.string().default(''),
  triggerPrice: zeroText,
  tpslMode: z.string().default(''),
  createdTime: msText,
  updatedTime: msText,
});
export type BybitOrder = z.output<typeof OrderRow>;
/** The page, rows read loosely: a kind of order the adapter does not hold must not stop the others. */
export const OrdersPage = page(z.looseObject({ orderId: z.string() }));

/** `GET /v5/execution/list?orderId=`: each fill's quantity, fee (and its coin) and closed size. */
export const ExecutionsAnswer = page(
  z.object({
    orderId: z.string(),
    execQty: decimalText,
    execFee: decimalText,
    feeCurrency: z.string().default(''),
    closedSize: zeroText,
    execType: z.string().default('Trade'),
  }),
);

/** `GET /v5/position/closed-pnl`: what one closing order closed, at what entry and exit value. */
export const ClosedPnlAnswer = page(
  z.object({
    orderId: z.string(),
    side: z.enum(['Buy', 'Sell']),
    closedSize: decimalText,
    cumEntryValue: decimalText,
    cumExitValue: decimalText,
    closedPnl: decimalText,
  }),
);

/** One row of `GET /v5/position/list`. */
export const PositionRow = z.object({
  symbol: z.string().min(1),
  side: z.enum(['Buy', 'Sell', '']),
  size: decimalText,
  positionIdx: z.number().int().default(0),
  avgPrice: zeroText,
  markPrice: decimalText,
  unrealisedPnl: zeroText,
  liqPrice: zeroText,
  breakEvenPrice: zeroText,
  leverage: zeroText,
  positionIM: zeroText,
  positionMM: zeroText,
  positionValue: zeroText,
  takeProfit: zeroText,
  stopLoss: zeroText,
  trailingStop: zeroText,
  updatedTime: msText.default(0),
});
export type BybitPosition = z.output<typeof PositionRow>;
export const PositionsPage = page(PositionRow);

/** `GET /v5/account/wallet-balance?accountType=UNIFIED&coin=USDT`. */
export const WalletAnswer = z.object({
  list: z.array(
    z.object({
      totalAvailableBalance: maybeText.optional(),
      coin: z.array(
        z.object({
          coin: z.string(),
          walletBalance: decimalText,
          unrealisedPnl: zeroText,
          totalPositionIM: zeroText,
          totalOrderIM: zeroText,
        }),
      ),
    }),
  ),
});

/** `GET /v5/account/fee-rate?category=linear&symbol=`. */
export const FeeRateAnswer = z.object({
  list: z.array(z.object({ symbol: z.string(), takerFeeRate: decimalText })).min(1),
});

/** `GET /v5/user/query-api`: what the key may do. */
export const ApiKeyInfo = z.object({
  readOnly: z.union([z.literal(0), z.literal(1)]),
  permissions: z.object({
    ContractTrade: z.array(z.string()).default([]),
    Derivatives: z.array(z.string()).default([]),
    Wallet: z.array(z.string()).default([]),
  }),
  ips: z.array(z.string()).default([]),
  deadlineDay: z.number().optional(),
});

/** A private-stream frame that is an answer to us (auth, subscribe, ping), not a push. */
export const StreamReply = z.object({
  op: z.string(),
  success: z.boolean().optional(),
  ret_msg: z.string().optional(),
});

/** A push of the private stream: its topic and rows (read row by row with the schemas above). */
export const StreamPush = z.object({
  topic: z.string(),
  creationTime: z.number().optional(),
  data: z.array(z.looseObject({})),
});

/** One row of the `execution` topic. */
export const StreamExecution = z.object({
  category: z.string(),
  symbol: z.string().min(1),
  orderId: z.string().min(1),
  orderLinkId: z.string(),
  side: z.enum(['Buy', 'Sell']),
  orderQty: zeroText,
  execPrice: decimalText,
  execQty: decimalText,
  execFee: zeroText,
  execPnl: maybeText.optional(),
  execType: z.string(),
  closedSize: zeroText,
  leavesQty: zeroText,
  feeCurrency: z.string().default(''),
  execTime: msText,
});

/** One row of the `position` topic (its entry price is `entryPrice`, not REST's avgPrice). */
export const StreamPosition = z.object({
  category: z.string(),
  symbol: z.string().min(1),
  side: z.enum(['Buy', 'Sell', '']),
  size: decimalText,
  entryPrice: zeroText,
  breakEvenPrice: zeroText,
  unrealisedPnl: zeroText,
  positionIM: zeroText,
});
