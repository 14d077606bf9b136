import {
  PriceSocketRequest,
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
  send(data: string): void;
  /** Drops the connection at once, without waiting for queued data. */
  terminate(): void;
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
  /** A client gets at most one price frame per this period. */
  flushMs?: number;
  heartbeatMs?: number;
  /** A client whose unsent data exceeds this is dropped instead of buffered without bound. */
  maxBufferedBytes?: number;
  onDrop?(reason: 'slow' | 'dead'): void;
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
  return parsed.success ? parsed.data : 'Unknown request: expected op subscribe, unsubscribe or candles.';
}

export const HUB_DEFAULTS = { flushMs: 250, heartbeatMs: 15_000, maxBufferedBytes: 1024 * 1024 } as const;

export interface HubClient {
  readonly socket: PeerSocket;
  all: boolean;
  symbols: Set<string>;
  /** Cache key of the subscription (clients with the same key share one serialised frame). */
  key: string;
  chart: string | null;
  alive: boolean;
}
