import type { Position, PositionsMessage } from '../../../src/contracts/trading';

/** The part of a WebSocket the hub needs. */
export interface PositionsSocket {
  readonly bufferedAmount: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

interface Client {
  userId: string;
  socket: PositionsSocket;
  symbols: Set<string>;
  timer: ReturnType<typeof setTimeout> | null;
  lastSent: number;
}

export interface PositionsHubOptions {
  /** Reads a user's positions. */
  positions(userId: string): Promise<Position[]>;
  /**
   * Called when a user's first socket connects; the disposer it returns runs when their last one
   * closes (the live account's user-data stream lives that long).
   */
  watch?(userId: string): () => void;
  /** At most one snapshot per client per this many ms (250 → ≤ 4/s). */
  minIntervalMs?: number;
  /** A client whose unsent bytes exceed this is dropped, never buffered without bound. */
  maxBufferedBytes?: number;
  now?: () => number;
  setTimer?: (fn: () => void, ms: number) => ReturnType<typeof setTimeout>;
  clearTimer?: (t: ReturnType<typeof setTimeout>) => void;
}

/**
 * Pushes each connected user's positions: a snapshot on connect, then again whenever the account changes
 * or the mark of a held symbol moves, throttled per client.
 */
export class PositionsHub {
  private readonly clients = new Set<Client>();
  private readonly watching = new Map<string, () => void>();
  private readonly minInterval: number;
  private readonly maxBuffered: number;
  private readonly now: () => number;
  private readonly setTimer: NonNullable<PositionsHubOptions['setTimer']>;
  private readonly clearTimer: NonNullable<PositionsHubOptions['clearTimer']>;

  constructor(private readonly opts: PositionsHubOptions) {
    this.minInterval = opts.minIntervalMs ?? 250;
    this.maxBuffered = opts.maxBufferedBytes ?? 256 * 1024;
    this.now = opts.now ?? Date.now;
    this.setTimer = opts.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = opts.clearTimer ?? ((t) => clearTimeout(t));
  }

  get size(): number {
    return this.clients.size;
  }

  /** Registers a socket and sends its first snapshot; returns the disposer to call on close. */
  connect(userId: string, socket: PositionsSocket): () => void {
    const client: Client = { userId, socket, symbols: new Set(), timer: null, lastSent: 0 };
    this.clients.add(client);
    if (this.opts.watch !== undefined && !this.watching.has(userId)) {
      this.watching.set(userId, this.opts.watch(userId));
    }
    void this.send(client);
    return () => this.drop(client);
  }

  /** The user chose another account: watch that one instead, and send fresh snapshots. */
  accountChosen(userId: string): void {
    const stop = this.watching.get(userId);
    if (stop !== undefined && this.opts.watch !== undefined) {
      stop();
      this.watching.set(userId, this.opts.watch(userId));
    }
    this.accountChanged(userId);
  }

  /** The user's account changed. */
  accountChanged(userId: string): void {
    for (const c of this.clients) if (c.userId === userId) this.schedule(c);
  }

  /** Marks moved for these symbols. */
  marksMoved(symbols: ReadonlySet<string>): void {
    for (const c of this.clients) {
      for (const s of c.symbols) {
        if (symbols.has(s)) {
          this.schedule(c);
          break;
        }
      }
    }
  }

  /** Tells the user at once, outside the throttle. */
  liquidated(userId: string, symbol: string, price: number): void {
    const message: PositionsMessage = { type: 'liquidation', symbol, price, time: this.now() };
    for (const c of this.clients) if (c.userId === userId) this.write(c, message);
    this.accountChanged(userId);
  }

  closeAll(): void {
    for (const c of [...this.clients]) {
      c.socket.close(1001, 'server shutting down');
      this.drop(c);
    }
  }

  private schedule(c: Client): void {
    if (c.timer !== null) return;
    const wait = Math.max(0, c.lastSent + this.minInterval - this.now());
    c.timer = this.setTimer(() => {
      c.timer = null;
      void this.send(c);
    }, wait);
  }

  private async send(c: Client): Promise<void> {
    if (!this.clients.has(c)) return;
    c.lastSent = this.now();
    let positions: Position[];
    try {
      positions = await this.opts.positions(c.userId);
    } catch {
      // Keep the socket: the next change or tick tries again.
      return;
    }
    c.symbols = new Set(positions.map((p) => p.symbol.replace('/', '')));
    this.write(c, { type: 'snapshot', positions, time: this.now() });
  }

  private write(c: Client, message: PositionsMessage): void {
    if (!this.clients.has(c)) return;
    if (c.socket.bufferedAmount > this.maxBuffered) {
      c.socket.close(1013, 'too slow');
      this.drop(c);
      return;
    }
    c.socket.send(JSON.stringify(message));
  }

  private drop(c: Client): void {
    if (c.timer !== null) this.clearTimer(c.timer);
    c.timer = null;
    if (!this.clients.delete(c)) return;
    for (const other of this.clients) if (other.userId === c.userId) return;
    this.watching.get(c.userId)?.();
    this.watching.delete(c.userId);
  }
}
