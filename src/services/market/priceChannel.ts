import {
  PriceSocketMessage,
  type Candle,
  type Interval,
  type PriceItem,
  type PriceSocketRequest,
} from '../../contracts/market';
import type { Clock } from '../clock';
import type { ConnectionStore } from '../stores/connection';
import { openJsonSocket, type JsonSocket, type WebSocketClass } from '../net/jsonSocket';
import type { MarketStore } from '../stores/market';

export type { WebSocketClass } from '../net/jsonSocket';

export interface PriceChannelDeps {
  /** Absolute ws(s):// address of /api/ws/prices. */
  url: string;
  WebSocket: WebSocketClass;
  market: MarketStore;
  connection: ConnectionStore;
  clock: Clock;
  /** Back-off between reconnects: min(minDelayMs × 2^n, maxDelayMs) (docs/product.md §9 uses 1 s and 30 s). */
  minDelayMs?: number;
  maxDelayMs?: number;
}

export interface CandleUpdate {
  s: string;
  i: Interval;
  candle: Candle;
}

export interface PriceChannel {
  /** Connects (and keeps reconnecting); the disposer closes for good. */
  start(): () => void;
  /** Receive prices of `symbol` (BTCUSDT) while the returned disposer has not run. */
  watch(symbol: string): () => void;
  /** Live candles for the chart, or none. */
  setChart(symbol: string | null, interval: Interval): void;
  onPrices(listener: (items: readonly PriceItem[]) => void): () => void;
  onCandle(listener: (update: CandleUpdate) => void): () => void;
}

/** Missing this many heartbeats in a row counts as a dead connection. */
const MISSED_HEARTBEATS = 2.5;

/** Address of the price socket for an API base (`/api` or absolute) seen from `pageUrl`. */
export function priceSocketUrl(apiBase: string, pageUrl: string): string {
  const url = new URL(`${apiBase.replace(/\/+$/, '')}/ws/prices`, pageUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.href;
}

/**
 * The browser's end of `/api/ws/prices`: keeps the socket up (reconnecting-websocket), re-sends the
 * subscriptions after each reconnect, reports the "prices" channel to the connection store, stores the
 * prices and the feed's source, and reconnects when heartbeats stop.
 */
export function createPriceChannel(deps: PriceChannelDeps): PriceChannel {
  const watched = new Map<string, number>();
  let chart: { symbol: string; interval: Interval } | null = null;
  let socket: JsonSocket | null = null;
  let heartbeatMs = 15_000;
  let cancelWatchdog = (): void => undefined;
  const priceListeners = new Set<(items: readonly PriceItem[]) => void>();
  const candleListeners = new Set<(update: CandleUpdate) => void>();

  const send = (request: PriceSocketRequest): void => {
    socket?.send(request);
  };

  const armWatchdog = (): void => {
    cancelWatchdog();
    cancelWatchdog = deps.clock.setTimer(() => socket?.reconnect(), heartbeatMs * MISSED_HEARTBEATS);
  };

  const onMessage = (msg: PriceSocketMessage): void => {
    switch (msg.type) {
      case 'hello':
        heartbeatMs = msg.heartbeatMs;
        deps.market.setFeed(msg.source, msg.status);
        armWatchdog();
        return;
      case 'heartbeat':
        deps.market.setFeed(msg.source, msg.status);
        return;
      case 'prices':
        deps.market.applyPrices(msg.data);
        for (const listener of [...priceListeners]) listener(msg.data);
        return;
      case 'candle':
        for (const listener of [...candleListeners]) listener(msg);
        return;
      case 'error':
        return; // Price-feed failures are only logged (docs/product.md §8); nothing to show.
    }
  };

  const onOpen = (): void => {
    deps.connection.setChannel('prices', true);
    if (watched.size > 0) send({ op: 'subscribe', symbols: [...watched.keys()] });
    if (chart !== null) send({ op: 'candles', symbol: chart.symbol, interval: chart.interval });
    armWatchdog();
  };

  return {
    start() {
      const ws = openJsonSocket({
        url: deps.url,
        WebSocket: deps.WebSocket,
        schema: PriceSocketMessage,
        onMessage,
        onFrame: armWatchdog,
        onOpen,
        onClose: () => {
          cancelWatchdog();
          deps.connection.setChannel('prices', false);
        },
        ...(deps.minDelayMs === undefined ? {} : { minDelayMs: deps.minDelayMs }),
        ...(deps.maxDelayMs === undefined ? {} : { maxDelayMs: deps.maxDelayMs }),
      });
      socket = ws;
      return () => {
        cancelWatchdog();
        ws.close();
        socket = null;
        deps.connection.setChannel('prices', false);
      };
    },
    watch(symbol) {
      const count = watched.get(symbol) ?? 0;
      watched.set(symbol, count + 1);
      if (count === 0) send({ op: 'subscribe', symbols: [symbol] });
      let disposed = false;
      return () => {
        if (disposed) return;
        disposed = true;
        const left = (watched.get(symbol) ?? 1) - 1;
        if (left > 0) {
          watched.set(symbol, left);
          return;
        }
        watched.delete(symbol);
        send({ op: 'unsubscribe', symbols: [symbol] });
      };
    },
    setChart(symbol, interval) {
      chart = symbol === null ? null : { symbol, interval };
      send({ op: 'candles', symbol, interval });
    },
    onPrices(listener) {
      priceListeners.add(listener);
      return () => priceListeners.delete(listener);
    },
    onCandle(listener) {
      candleListeners.add(listener);
      return () => candleListeners.delete(listener);
    },
  };
}
