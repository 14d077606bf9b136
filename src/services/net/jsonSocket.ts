import ReconnectingWebSocket from 'reconnecting-websocket';
import type { ZodType } from 'zod';

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
  /** Back-off between reconnects: min(minDelayMs × 2^n, maxDelayMs); it never gives up. */
  minDelayMs?: number;
  maxDelayMs?: number;
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
 * for as long as it lives, parses each frame as JSON and checks it against a zod schema.
 */
export function openJsonSocket<T>(options: JsonSocketOptions<T>): JsonSocket {
  const ws = new ReconnectingWebSocket(options.url, [], {
    WebSocket: options.WebSocket,
    minReconnectionDelay: options.minDelayMs ?? 1_000,
    maxReconnectionDelay: options.maxDelayMs ?? 30_000,
    reconnectionDelayGrowFactor: 2,
    minUptime: 5_000,
    connectionTimeout: 8_000,
  });
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
