import { z } from 'zod';
import { decimal } from './numbers';

/**
 * Market data on the wire: `GET /api/price/{symbol}`, `GET /api/klines`, `GET /api/symbols` and the
 * price socket `WS /api/ws/prices`. Times are Unix milliseconds (UTC), prices are numbers.
 */

/** Candle intervals the chart offers; each has a fixed length, so candles align to the epoch. */
export const INTERVALS = ['1m', '3m', '5m', '15m', '30m', '1h', '2h', '4h', '6h', '8h', '12h', '1d'] as const;
export const Interval = z.enum(INTERVALS, { error: `one of ${INTERVALS.join(', ')}` });
export type Interval = z.infer<typeof Interval>;

/** docs/product.md §9: the chart opens on 15 minutes. */
export const DEFAULT_INTERVAL: Interval = '15m';

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Length of one candle of `interval` in milliseconds. */
export function intervalMs(interval: Interval): number {
  const unit = interval.slice(-1) as keyof typeof UNIT_MS;
  return Number(interval.slice(0, -1)) * UNIT_MS[unit];
}

/** Open time of the candle of `interval` that contains `time`. */
export function candleOpenTime(time: number, interval: Interval): number {
  const ms = intervalMs(interval);
  return Math.floor(time / ms) * ms;
}

export const MARKET_SOURCES = ['sim', 'binance'] as const;
export const MarketSourceKind = z.enum(MARKET_SOURCES);
export type MarketSourceKind = z.infer<typeof MarketSourceKind>;

/** `ok` while data flows; `degraded` when the upstream went quiet or dropped and is being reconnected. */
export const FeedStatus = z.enum(['ok', 'degraded']);
export type FeedStatus = z.infer<typeof FeedStatus>;

export const SymbolInfoSchema = z.object({
  symbol: z.string(),
  ticker: z.string(),
  pair: z.string(),
  name: z.string(),
  icon: z.string(),
});
export const SymbolList = z.array(SymbolInfoSchema);

export const PriceQuote = z.object({ symbol: z.string(), price: z.number(), time: z.number().int() });
export type PriceQuote = z.infer<typeof PriceQuote>;

/** One candle; `time` is its open time. */
export const Candle = z.object({
  time: z.number().int(),
  open: z.number(),
  high: z.number(),
  low: z.number(),
  close: z.number(),
  volume: z.number(),
});
export type Candle = z.infer<typeof Candle>;
export const CandleList = z.array(Candle);

export const KLINES_MAX = 1000;

/** `GET /api/klines` query: symbol as BTCUSDT (any case), interval (default 15m), limit 1 to 1000. */
export const KlinesQuery = z.object({
  symbol: z.string().min(1).max(20),
  interval: Interval.default(DEFAULT_INTERVAL),
  limit: decimal(z.number().int().min(1).max(KLINES_MAX)).default(500),
});
export type KlinesQuery = z.infer<typeof KlinesQuery>;

/** The most symbols one price-socket request may name. */
export const SYMBOLS_PER_REQUEST = 200;

/** What a price socket client may send. `symbols: "*"` means every symbol. */
const SymbolSelection = z.union([
  z.literal('*'),
  z.array(z.string().min(1).max(20)).max(SYMBOLS_PER_REQUEST),
]);
export const PriceSocketRequest = z.discriminatedUnion('op', [
  z.object({ op: z.literal('subscribe'), symbols: SymbolSelection }),
  z.object({ op: z.literal('unsubscribe'), symbols: SymbolSelection }),
  /** Live candles for the chart: one symbol and interval per client; `symbol: null` stops them. */
  z.object({ op: z.literal('candles'), symbol: z.string().min(1).max(20).nullable(), interval: Interval }),
]);
export type PriceSocketRequest = z.infer<typeof PriceSocketRequest>;

/** One price: symbol `s`, price `p` (docs/product.md §7), and `t` the time the price was seen upstream. */
export const PriceItem = z.object({ s: z.string(), p: z.number(), t: z.number() });
export type PriceItem = z.infer<typeof PriceItem>;

export const PriceSocketMessage = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('hello'),
    source: MarketSourceKind,
    status: FeedStatus,
    heartbeatMs: z.number(),
  }),
  /** The latest price of each subscribed symbol that changed since the last batch; `t` is the send time. */
  z.object({ type: z.literal('prices'), t: z.number(), data: z.array(PriceItem) }),
  z.object({ type: z.literal('candle'), s: z.string(), i: Interval, candle: Candle }),
  z.object({ type: z.literal('heartbeat'), t: z.number(), source: MarketSourceKind, status: FeedStatus }),
  z.object({ type: z.literal('error'), detail: z.string() }),
]);
export type PriceSocketMessage = z.infer<typeof PriceSocketMessage>;
