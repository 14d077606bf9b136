import {
  PriceSocketRequest,
  SYMBOLS_PER_REQUEST,
  type Candle,
  type FeedStatus,
  type Interval,
  type MarketSourceKind,
  type PriceItem,
} from '../../../src/contracts/market';
import type { Clock, Disposer } from './clock';

/** The price hub's collaborators and options. */

/** The part of a socket the hub uses; `ws`'s WebSocket fits, and tests pass a fake. */
export interface PeerSocket {
  readonly bufferedAmount: number;
  /** A text frame (`binary: false`): a string, or its UTF-8 bytes encoded once for many sockets. */
  send(data: string | Buffer, options: { binary: boolean }): void;
  /** Drops the connection at once, without waiting for queued data. */
  terminate(): void;
  /** Closes with a WebSocket close code and reason (1008 for a client that breaks the rules). */
  close?(code: number, reason: string): void;
  ping?(): void;
}

/** What the hub needs from the market service. */
export interface HubFeed {
  readonly kind: MarketSourceKind;
  status(): FeedStatus;
  onTicks(listener: (ticks: readonly PriceItem[]) => void): Disposer;
  find(symbol: string): { symbol: string } | undefined;
  watchCandles(symbol: string, interval: Interval, listener: (candle: Candle) => void): Disposer;
}

export interface HubOptions {
  clock: Clock;
  /** A client gets at most one price frame per this period (50 ms: a terminal drawing at 20 fps). */
  flushMs?: number;
  heartbeatMs?: number;
  /** A client whose unsent data exceeds this is dropped instead of buffered without bound. */
  maxBufferedBytes?: number;
  /** Requests a client may send per second on average (a token bucket)… */
  messagesPerSecond?: number;
  /** …and in one burst. Requests beyond it are not answered; one error says so, once a second. */
  messageBurst?: number;
  /** A client that keeps sending this many requests past its limit is disconnected. */
  maxIgnoredMessages?: number;
  /** Symbols one connection may follow by name (`"*"` follows all of them at no cost). */
  maxSymbolsPerClient?: number;
  onDrop?(reason: 'slow' | 'dead' | 'flood'): void;
}

/** A client's text frame as a request, or the error detail to answer. */
export function parseClientFrame(text: string): PriceSocketRequest | string {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return 'Messages must be JSON.';
  }
  const parsed = PriceSocketRequest.safeParse(json);
  if (parsed.success) return parsed.data;
  const symbols = (json as { symbols?: unknown } | null)?.symbols;
  if (Array.isArray(symbols) && symbols.length > SYMBOLS_PER_REQUEST) {
    return `At most ${SYMBOLS_PER_REQUEST} symbols in one request.`;
  }
  return 'Unknown request: expected op subscribe, unsubscribe or candles.';
}

export const HUB_DEFAULTS = {
  flushMs: 50,
  heartbeatMs: 15_000,
  maxBufferedBytes: 1024 * 1024,
  messagesPerSecond: 10,
  messageBurst: 20,
  maxIgnoredMessages: 200,
  maxSymbolsPerClient: 200,
} as const;

/** How many unknown symbols one error frame names before it says "and N more". */
export const UNKNOWN_LISTED = 5;

/** The one error frame for a request that named unknown symbols. */
export function unknownSymbolsDetail(unknown: readonly string[]): string {
  const names = unknown.slice(0, UNKNOWN_LISTED).map((s) => s.toUpperCase());
  if (unknown.length === 1) return `Unknown symbol: ${names[0]}.`;
  const more = unknown.length > UNKNOWN_LISTED ? ` and ${unknown.length - UNKNOWN_LISTED} more` : '';
  return `Unknown symbols: ${names.join(', ')}${more}.`;
}

export interface HubClient {
  readonly socket: PeerSocket;
  all: boolean;
  symbols: Set<string>;
  /** Cache key of the subscription (clients with the same key share one serialised frame). */
  key: string;
  chart: string | null;
  alive: boolean;
  /** Requests the client may still send now (refilled over time), and when it was last refilled. */
  tokens: number;
  refilledAt: number;
  /** Requests ignored in a row for being over the limit, and when the client was last told so. */
  ignored: number;
  warnedAt: number;
}
