import { z } from 'zod';
import { INTERVALS, type Candle, type Interval, type PriceItem } from '../../../../src/contracts/market';

/**
 * Binance USD-M public market data as Binance sends it (numbers as decimal strings), parsed with zod
 * into the module's shapes. Anything that does not parse is reported as malformed, never thrown.
 */

/** Every symbol's last price, once a second. */
export const ALL_MINI_TICKERS = '!miniTicker@arr';
/** Every symbol's mark price (what Binance liquidates on), once a second. */
export const ALL_MARK_PRICES = '!markPrice@arr@1s';

const decimal = z
  .string()
  .regex(/^-?\d+(\.\d+)?$/)
  .transform(Number);

/** `GET /fapi/v1/ticker/price` → `{symbol, price, time}` (or an array of them without `symbol`). */
export const RestTickerPrice = z.object({ symbol: z.string(), price: decimal, time: z.number() });

/** `GET /fapi/v1/klines` row: [openTime, o, h, l, c, v, closeTime, quoteVol, trades, takerBase, takerQuote, ignore]. */
export const RestKlineRow = z.tuple([
  z.number(),
  decimal,
  decimal,
  decimal,
  decimal,
  decimal,
  z.number(),
  z.string(),
  z.number(),
  z.string(),
  z.string(),
  z.string(),
]);
export const RestKlines = z.array(RestKlineRow);

export function rowToCandle(row: z.output<typeof RestKlineRow>): Candle {
  return { time: row[0], open: row[1], high: row[2], low: row[3], close: row[4], volume: row[5] };
}

const MiniTicker = z.object({
  e: z.literal('24hrMiniTicker'),
  E: z.number(),
  s: z.string(),
  c: decimal,
  o: z.string(),
  h: z.string(),
  l: z.string(),
  v: z.string(),
  q: z.string(),
});

const KlineEvent = z.object({
  e: z.literal('kline'),
  E: z.number(),
  s: z.string(),
  k: z.object({
    t: z.number(),
    T: z.number(),
    s: z.string(),
    i: z.enum(INTERVALS),
    o: decimal,
    c: decimal,
    h: decimal,
    l: decimal,
    v: decimal,
    x: z.boolean(),
  }),
});

/**
 * One entry of `!markPrice@arr@1s`. Delivery contracts in the same array carry `r: ""` and `T: 0` (no
 * funding), so those two are allowed empty rather than spoiling the whole frame.
 */
const MarkPriceUpdate = z.object({
  e: z.literal('markPriceUpdate'),
  E: z.number(),
  s: z.string(),
  p: decimal,
  i: decimal,
  r: decimal.or(z.literal('')),
  T: z.number(),
});

const Combined = z.object({ stream: z.string(), data: z.unknown() });
const Reply = z.object({ result: z.unknown(), id: z.number() });

export type StreamFrame =
  | { kind: 'tickers'; items: PriceItem[] }
  | { kind: 'marks'; items: PriceItem[] }
  | { kind: 'candle'; symbol: string; interval: Interval; candle: Candle }
  | { kind: 'reply'; id: number }
  | { kind: 'malformed'; reason: string };

/** Parses one text frame of a combined stream (`{"stream":…,"data":…}`) or a method reply. */
export function parseStreamFrame(text: string): StreamFrame {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: 'malformed', reason: 'not JSON' };
  }
  const reply = Reply.safeParse(json);
  if (reply.success) return { kind: 'reply', id: reply.data.id };
  const combined = Combined.safeParse(json);
  if (!combined.success) return { kind: 'malformed', reason: 'not a combined-stream frame' };
  const { stream, data } = combined.data;
  if (stream === ALL_MINI_TICKERS) {
    const tickers = z.array(MiniTicker).safeParse(data);
    if (!tickers.success) return { kind: 'malformed', reason: `bad ${stream} payload` };
    return { kind: 'tickers', items: tickers.data.map((t) => ({ s: t.s, p: t.c, t: t.E })) };
  }
  if (stream === ALL_MARK_PRICES) {
    const marks = z.array(MarkPriceUpdate).safeParse(data);
    if (!marks.success) return { kind: 'malformed', reason: `bad ${stream} payload` };
    return { kind: 'marks', items: marks.data.map((m) => ({ s: m.s, p: m.p, t: m.E })) };
  }
  if (stream.includes('@kline_')) {
    const event = KlineEvent.safeParse(data);
    if (!event.success) return { kind: 'malformed', reason: `bad ${stream} payload` };
    const k = event.data.k;
    return {
      kind: 'candle',
      symbol: event.data.s,
      interval: k.i,
      candle: { time: k.t, open: k.o, high: k.h, low: k.l, close: k.c, volume: k.v },
    };
  }
  return { kind: 'malformed', reason: `unexpected stream ${stream}` };
}

/** The stream name Binance uses for a symbol's candles, e.g. `btcusdt@kline_15m`. */
export const klineStream = (symbol: string, interval: Interval): string =>
  `${symbol.toLowerCase()}@kline_${interval}`;
