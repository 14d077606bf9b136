/** A stand-in for the browser's WebSocket that a test opens, feeds and drops by hand. */
export interface FakeSocket {
  readonly url: string;
  readonly readyState: number;
  readonly sent: readonly string[];
  /** The server accepted the connection. */
  open(): void;
  /** The server sent a JSON message. */
  receive(message: unknown): void;
  /** The connection was lost (or refused: a 401 on the upgrade looks the same to a browser). */
  drop(code?: number): void;
}

type Listener = (event: { type: string; data?: unknown; code?: number; reason?: string }) => void;

/**
 * A WebSocket class for reconnecting-websocket (it checks the static constants) and a list of every
 * socket it made, newest last. `sockets` shows how many attempts were made and when.
 */
export function createFakeWebSocket(now: () => number) {
  const sockets: (FakeSocket & { createdAt: number })[] = [];

  class FakeWebSocket implements FakeSocket {
    static readonly CONNECTING = 0;
    static readonly OPEN = 1;
    static readonly CLOSING = 2;
    static readonly CLOSED = 3;
    readonly CONNECTING = 0;
    readonly OPEN = 1;
    readonly CLOSING = 2;
    readonly CLOSED = 3;
    readyState = 0;
    binaryType = 'blob';
    bufferedAmount = 0;
    extensions = '';
    protocol = '';
    readonly sent: string[] = [];
    readonly createdAt = now();
    private readonly listeners = new Map<string, Set<Listener>>();

    constructor(readonly url: string) {
      sockets.push(this);
    }

    addEventListener(type: string, listener: Listener): void {
      const set = this.listeners.get(type) ?? new Set<Listener>();
      set.add(listener);
      this.listeners.set(type, set);
    }

    removeEventListener(type: string, listener: Listener): void {
      this.listeners.get(type)?.delete(listener);
    }

    send(data: string): void {
      this.sent.push(data);
    }

    close(code = 1000, reason = ''): void {
      if (this.readyState === 3) return;
      this.readyState = 3;
      this.emit({ type: 'close', code, reason });
    }

    open(): void {
      this.readyState = 1;
      this.emit({ type: 'open' });
    }

    receive(message: unknown): void {
      this.emit({ type: 'message', data: typeof message === 'string' ? message : JSON.stringify(message) });
    }

    drop(code = 1006): void {
      if (this.readyState === 3) return;
      this.readyState = 3;
      this.emit({ type: 'close', code, reason: '' });
    }

    private emit(event: { type: string; data?: unknown; code?: number; reason?: string }): void {
      for (const listener of [...(this.listeners.get(event.type) ?? [])]) listener(event);
    }
  }

  return {
    WebSocket: FakeWebSocket,
    sockets,
    /** The newest socket; throws when none was made. */
    last(): FakeSocket & { createdAt: number } {
      const socket = sockets.at(-1);
      if (socket === undefined) throw new Error('no socket was opened');
      return socket;
    },
  };
}
