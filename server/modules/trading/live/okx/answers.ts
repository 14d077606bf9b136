import { z } from 'zod';
import { decimalText } from '../binance-answers';

/**
 * OKX v5's `data` rows, one schema each, as the adapter reads them at its edge (the `{code, msg, data}`
 * envelope is read by the client). A field the adapter needs fails the parse when it is missing or not
 * what OKX documents; one it can do without gets a default. OKX sends every number as decimal text, and
 * `""` where a figure has no value (an order's avgPx before a fill, a position's liqPx when there is none).
 */

/** Decimal text, or `""` for none (read as null). */
const maybeText = z.union([decimalText, z.literal('')]).transform((v) => (v === '' ? null : v));
/** Decimal text OKX may send as `""` or leave out: `"0"` then. */
const zeroText = z
  .union([decimalText, z.literal('')])
  .optional()
  .transform((v) => (v === undefined || v === '' ? '0' : v));
/** Milliseconds as digits (OKX's cTime, uTime, ts). */
const msText = z.union([z.string().regex(/^\d+$/).transform(Number), z.number().int().nonnegative()]);
/** OKX's booleans in text (`"true"`), or real ones. */
const boolText = z
  .union([z.boolean(), z.enum(['true', 'false', ''])])
  .optional()
  .transform((v) => v === true || v === 'true');

/** One swap of `GET /api/v5/public/instruments?instType=SWAP`. */
export const Instrument = z.object({
  instId: z.string().min(1),
  state: z.string(),
  settleCcy: z.string().default(''),
  ctVal: decimalText,
  ctValCcy: z.string(),
  ctType: z.string().default('linear'),
  lotSz: decimalText,
  minSz: decimalText,
  tickSz: decimalText,
  maxMktSz: maybeText.optional(),
  lever: maybeText.optional(),
});
export type OkxInstrument = z.output<typeof Instrument>;
/** The rows, each read loosely: an odd row for a swap nobody trades must not stop the others. */
export const InstrumentRows = z.array(z.looseObject({ instId: z.string() }));

/** `GET /api/v5/market/ticker?instId=`. */
export const TickerRows = z.array(z.object({ instId: z.string(), last: decimalText })).min(1);

/** `POST /api/v5/trade/order`: only that OKX took it (`sCode` "0"). */
export const OrderAccepted = z
  .array(z.object({ ordId: z.string().min(1), clOrdId: z.string(), sCode: z.literal('0') }))
  .length(1);

export const OKX_ORDER_STATES = ['live', 'partially_filled', 'filled', 'canceled', 'mmp_canceled'] as const;

/** One order of `GET /api/v5/trade/order` (or a row of the `orders` channel): the parts the adapter reads. */
export const OrderRow = z.object({
  instId: z.string().min(1),
  ordId: z.string().min(1),
  clOrdId: z.string().default(''),
  side: z.enum(['buy', 'sell']),
  ordType: z.string(),
  state: z.enum(OKX_ORDER_STATES),
  sz: decimalText,
  accFillSz: zeroText,
  avgPx: zeroText,
  fee: zeroText,
  feeCcy: z.string().default(''),
  pnl: zeroText,
  reduceOnly: boolText,
  cTime: msText,
  uTime: msText,
});
export type OkxOrder = z.output<typeof OrderRow>;
export const OrderRows = z.array(OrderRow);

/** `GET /api/v5/trade/fills?instType=SWAP&instId=&ordId=`: each fill's size, fee (and its coin), PnL. */
export const FillRows = z.array(
  z.object({
    ordId: z.string(),
    fillSz: decimalText,
    fee: zeroText,
    feeCcy: z.string().default(''),
    fillPnl: zeroText,
  }),
);

/** One row of `GET /api/v5/account/positions?instType=SWAP` (and of the `positions` channel). */
export const PositionRow = z.object({
  instId: z.string().min(1),
  instType: z.string().default('SWAP'),
  mgnMode: z.enum(['cross', 'isolated']),
  posSide: z.enum(['net', 'long', 'short']),
  pos: decimalText,
  avgPx: zeroText,
  markPx: zeroText,
  upl: zeroText,
  liqPx: zeroText,
  bePx: zeroText,
  lever: zeroText,
  imr: zeroText,
  mmr: zeroText,
  margin: zeroText,
  uTime: msText.default(0),
});
export type OkxPosition = z.output<typeof PositionRow>;
/** The rows, read loosely: a row of a kind the adapter does not hold must not stop the others. */
export const PositionRows = z.array(z.looseObject({ instId: z.string() }));

/** `GET /api/v5/account/balance?ccy=USDT`. */
export const BalanceRows = z.array(
  z.object({
    details: z.array(
      z.object({
        ccy: z.string(),
        cashBal: decimalText,
        availEq: maybeText.optional(),
        availBal: maybeText.optional(),
        upl: zeroText,
      }),
    ),
  }),
);

/** `GET /api/v5/account/leverage-info?instId=&mgnMode=cross`. */
export const LeverageRows = z.array(z.object({ instId: z.string(), lever: decimalText }));

/** `GET /api/v5/account/trade-fee?instType=SWAP&instFamily=`: negative rates are charged. */
export const TradeFeeRows = z
  .array(z.object({ taker: maybeText.optional(), takerU: maybeText.optional() }))
  .min(1);

/** `GET /api/v5/account/config`: what the key may do, and how the account trades. */
export const AccountConfig = z
  .array(
    z.object({
      uid: z.string().default(''),
      acctLv: z.string(),
      posMode: z.enum(['net_mode', 'long_short_mode']),
      perm: z.string(),
      ip: z.string().default(''),
    }),
  )
  .min(1);

export const OKX_ALGO_STATES = [
  'live',
  'pause',
  'partially_effective',
  'effective',
  'canceled',
  'order_failed',
  'partially_failed',
] as const;

/** `POST /api/v5/trade/order-algo`: only that OKX took it. */
export const AlgoAccepted = z
  .array(z.object({ algoId: z.string().min(1), algoClOrdId: z.string().default(''), sCode: z.literal('0') }))
  .length(1);

/** One algo order of `GET /api/v5/trade/order-algo`, `orders-algo-pending` or the algo channels. */
export const AlgoRow = z.object({
  algoId: z.string().min(1),
  algoClOrdId: z.string().default(''),
  instId: z.string().min(1),
  ordType: z.string(),
  state: z.enum(OKX_ALGO_STATES),
  side: z.enum(['buy', 'sell']),
  sz: zeroText,
  closeFraction: zeroText,
  slTriggerPx: zeroText,
  tpTriggerPx: zeroText,
  callbackRatio: zeroText,
  activePx: zeroText,
  ordId: z.string().default(''),
  actualSz: zeroText,
  cTime: msText,
  uTime: msText.optional(),
});
export type OkxAlgo = z.output<typeof AlgoRow>;
/** The rows, read loosely: an algo kind the adapter does not hold must not stop the others. */
export const AlgoRows = z.array(z.looseObject({ algoId: z.string() }));

/** A private-stream frame that answers us (`login`, `subscribe`, `error`), not a push. */
export const StreamEvent = z.object({
  event: z.string(),
  code: z.string().optional(),
  msg: z.string().optional(),
  connId: z.string().optional(),
});

/** A push of the private stream: its channel and rows (read row by row with the schemas above). */
export const StreamPush = z.object({
  arg: z.object({ channel: z.string(), instType: z.string().optional() }),
  data: z.array(z.looseObject({})),
});

/** One row of the `orders` channel: the order as `GET /trade/order` has it, plus this fill. */
export const StreamOrder = OrderRow.extend({
  fillSz: zeroText,
  fillPx: zeroText,
  fillFee: zeroText,
  fillPnl: zeroText,
  fillFeeCcy: z.string().default(''),
  tradeId: z.string().default(''),
  fillTime: z.union([msText, z.literal('')]).optional(),
});
