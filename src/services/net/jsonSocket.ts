import ReconnectingWebSocket from 'reconnecting-websocket';
import type { ZodType } from 'zod';
import { backoffMs } from '../../contracts/backoff';

/** A WebSocket class: the browser's, or `ws` in Node (reconnecting-websocket takes either). */
export type WebSocketClass = abstract new (url: string, protocols?: string | string[]) => object;

export interface JsonSocketOptions<T> {
  /** The address, or a function answering it before each (re)connect (e.g. with a fresh ticket). */
  url: string | (() => Promise<string>);
  WebSocket: WebSocketClass;
  /** Messages that do not parse as JSON or fail this schema are dropped. */
  schema: ZodType<T>;
  onMessage(message: T): void;
  /** Every frame, parsed or not (a heartbeat watchdog). */
  onFrame?(): void;
  onOpen?(): void;
  onClose?(): void;
  /**
   * Back-off between reconnects: min(minDelayMs × 2^n, maxDelayMs) with full jitter (anywhere up to
   * that), so the browsers a server restart disconnected do not all come back at once. It never gives up.
   */
  minDelayMs?: number;
  maxDelayMs?: number;
  /** The jitter's randomness (`Math.random`); tests pass a fixed one. */
  random?: () => number;
}

export interface JsonSocket {
  readonly isOpen: boolean;
  /** Sends a value as JSON when the socket is open; otherwise drops it. */
  send(value: unknown): void;
  reconnect(): void;
  /** Closes for good. */
  close(): void;
}

/**
 * The one JSON-over-WebSocket set-up every browser socket uses: reconnects with exponential back-off
 * and jitter for as long as it lives, parses each frame as JSON and checks it against a zod schema.
 */
export function openJsonSocket<T>(options: JsonSocketOptions<T>): JsonSocket {
  const backoff = {
    baseMs: options.minDelayMs ?? 1_000,
    maxMs: options.maxDelayMs ?? 30_000,
    jitter: 'full',
    random: options.random,
  } as const;
  // Filled once the constructor returns; the getter below is read inside it too (try 0: no wait).
  const made: { ws?: ReconnectingWebSocket } = {};
  const ws = new ReconnectingWebSocket(options.url, [], {
    WebSocket: options.WebSocket,
    // reconnecting-websocket waits minReconnectionDelay × growFactor^(retries − 1), reading its options
    // anew before each try: with a factor of 1, this getter alone decides the wait of retry n.
    get minReconnectionDelay(): number {
      return backoffMs((made.ws?.retryCount ?? 1) - 1, backoff);
    },
    maxReconnectionDelay: backoff.maxMs,
    reconnectionDelayGrowFactor: 1,
    minUptime: 5_000,
    connectionTimeout: 8_000,
  });
  made.ws = ws;
  let closed = false;
  ws.addEventListener('open', () => {
    if (!closed) options.onOpen?.();
  });
  ws.addEventListener('close', () => {
    if (!closed) options.onClose?.();
  });
  ws.addEventListener('message', (event) => {
    if (closed || typeof event.data !== 'string') return;
    options.onFrame?.();
    let json: unknown;
    try {
      json = JSON.parse(event.data);
    } catch {
      return;
    }
    const parsed = options.schema.safeParse(json);
    if (parsed.success) options.onMessage(parsed.data);
  });
  return {
    get isOpen() {
      return !closed && ws.readyState === ReconnectingWebSocket.OPEN;
    },
    send(value) {
      if (!closed && ws.readyState === ReconnectingWebSocket.OPEN) ws.send(JSON.stringify(value));
    },
    reconnect() {
      if (!closed) ws.reconnect();
    },
    close() {
      closed = true;
      ws.close();
    },
  };
}
