import type { OpenOrder, Position, PositionsMessage } from '../../../src/contracts/trading';

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
  /** A snapshot is being read for this client; `again` asks for one more once it is sent. */
  sending: boolean;
  again: boolean;
  /** The account changed since its resting orders were last read: the next snapshot reads them. */
  ordersDue: boolean;
}

export interface PositionsHubOptions {
  /** Reads a user's positions: on `account` when given, else on the account they chose. */
  positions(userId: string, account?: string): Promise<Position[]>;
  /**
   * Reads a user's resting limit orders (on `account` when given) for the first snapshot and those an
   * account change asks for, never for a move of the marks; undefined when their venue cannot list them.
   */
  orders?(userId: string, account?: string): Promise<OpenOrder[] | undefined>;
  /**
   * The account a user's sockets show ('paper' or a key id). Read when their first socket connects, on
   * `accountChosen`, and in the background once it is older than `accountTtlMs`, so that a snapshot
   * never waits for it.
   */
  account?(userId: string): Promise<string>;
  accountTtlMs?: number;
  /**
   * Called when a user's first socket connects; the disposer it returns runs when their last one
   * closes (the live account's user-data stream lives that long).
   */
  watch?(userId: string): () => void;
  /** Snapshots for moved marks: at most one per client per this many ms (250 → ≤ 4/s). */
  minIntervalMs?: number;
  /**
   * Runs the snapshots that account changes asked for (default: on a microtask, so that a fill is shown
   * at once even while other work keeps the event loop busy; the changes made before it runs still make
   * one snapshot per client).
   */
  defer?: (fn: () => void) => void;
  /** A client whose unsent bytes exceed this is dropped, never buffered without bound. */
  maxBufferedBytes?: number;
  now?: () => number;
  setTimer?: (fn: () => void, ms: number) => ReturnType<typeof setTimeout>;
  clearTimer?: (t: ReturnType<typeof setTimeout>) => void;
}

/**
 * Pushes each connected user's positions: a snapshot on connect, then again whenever the account changes
 * (at once, coalesced per client) or the mark of a held symbol moves (throttled per client).
 */
export class PositionsHub {
  private readonly clients = new Set<Client>();
  private readonly watching = new Map<string, () => void>();
  private readonly minInterval: number;
  private readonly maxBuffered: number;
  private readonly now: () => number;
  private readonly setTimer: NonNullable<PositionsHubOptions['setTimer']>;
  private readonly clearTimer: NonNullable<PositionsHubOptions['clearTimer']>;
  private readonly defer: (fn: () => void) => void;
  /** Clients whose account changed since the last deferred run: each gets one snapshot. */
  private readonly changed = new Set<Client>();
  /** The account each connected user's sockets show, and when it was read. */
  private readonly shown = new Map<string, { account: string | undefined; at: number; reading: boolean }>();

  constructor(private readonly opts: PositionsHubOptions) {
    this.minInterval = opts.minIntervalMs ?? 250;
    this.maxBuffered = opts.maxBufferedBytes ?? 256 * 1024;
    this.now = opts.now ?? Date.now;
    this.setTimer = opts.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = opts.clearTimer ?? ((t) => clearTimeout(t));
    this.defer = opts.defer ?? ((fn) => queueMicrotask(fn));
  }

  get size(): number {
    return this.clients.size;
  }

  /** Registers a socket and sends its first snapshot; returns the disposer to call on close. */
  connect(userId: string, socket: PositionsSocket): () => void {
    const client: Client = {
      userId,
      socket,
      symbols: new Set(),
      timer: null,
      lastSent: 0,
      sending: false,
      again: false,
      ordersDue: true,
    };
    this.clients.add(client);
    if (this.opts.watch !== undefined && !this.watching.has(userId)) {
      this.watching.set(userId, this.opts.watch(userId));
    }
    void this.send(client);
    return () => this.drop(client);
  }

  /**
   * The account to read a user's snapshot on: known (re-read in the background when old), or undefined.
   * A due re-read takes along every other user's that is past half its age, in the same tick (one
   * statement for all of them, where the reads are batched): thirty sockets cost one read every few
   * seconds, not thirty spread over them, each of which could hold up a headline's statements.
   */
  private accountOf(userId: string): string | undefined {
    if (this.opts.account === undefined) return undefined;
    let entry = this.shown.get(userId);
    if (entry === undefined) {
      entry = { account: undefined, at: -Infinity, reading: false };
      this.shown.set(userId, entry);
    }
    const ttl = this.opts.accountTtlMs ?? 5_000;
    const now = this.now();
    if (!entry.reading && now - entry.at >= ttl) {
      for (const [user, e] of this.shown) {
        if (e === entry || (!e.reading && now - e.at >= ttl / 2)) this.readAccount(user, e);
      }
    }
    return entry.account;
  }

  private readAccount(
    userId: string,
    e: { account: string | undefined; at: number; reading: boolean },
  ): void {
    const read = this.opts.account;
    if (read === undefined) return;
    e.reading = true;
    read(userId)
      .then(
        (account) => {
          e.account = account;
          e.at = this.now();
        },
        () => undefined,
      )
      .finally(() => {
        e.reading = false;
      });
  }

  /** The user chose another account: watch that one instead, and send fresh snapshots. */
  accountChosen(userId: string): void {
    this.shown.delete(userId);
    const stop = this.watching.get(userId);
    if (stop !== undefined && this.opts.watch !== undefined) {
      stop();
      this.watching.set(userId, this.opts.watch(userId));
    }
    this.accountChanged(userId);
  }

  /** The user's account changed: a fresh snapshot goes out at once, outside the marks' throttle. */
  accountChanged(userId: string): void {
    const first = this.changed.size === 0;
    for (const c of this.clients) {
      if (c.userId !== userId) continue;
      c.ordersDue = true;
      this.changed.add(c);
    }
    if (first && this.changed.size > 0) this.defer(() => this.sendChanged());
  }

  private sendChanged(): void {
    const due = [...this.changed];
    this.changed.clear();
    for (const c of due) {
      if (c.timer !== null) this.clearTimer(c.timer);
      c.timer = null;
      void this.send(c);
    }
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

  /** Sends a message to every socket of the user (a rule's proposal, and what became of it). */
  tell(userId: string, message: PositionsMessage): void {
    for (const c of this.clients) if (c.userId === userId) this.write(c, message);
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
    // One read at a time per client; a change during it is read again right after, so none is missed.
    if (c.sending) {
      c.again = true;
      return;
    }
    c.sending = true;
    c.lastSent = this.now();
    let positions: Position[] | null = null;
    let orders: OpenOrder[] | undefined;
    try {
      const account = this.accountOf(c.userId);
      const due = c.ordersDue;
      c.ordersDue = false;
      const reading = due ? this.opts.orders?.(c.userId, account).catch(() => undefined) : undefined;
      positions = await (account === undefined
        ? this.opts.positions(c.userId)
        : this.opts.positions(c.userId, account));
      orders = await reading;
    } catch {
      // Keep the socket: the next change or tick tries again, with the account read afresh (a key the
      // user deleted is no longer theirs to read).
      this.shown.delete(c.userId);
    } finally {
      c.sending = false;
    }
    if (positions !== null) {
      c.symbols = new Set(positions.map((p) => p.symbol.replace('/', '')));
      const message: PositionsMessage = { type: 'snapshot', positions, time: this.now() };
      this.write(c, orders === undefined ? message : { ...message, orders });
    }
    if (c.again) {
      c.again = false;
      void this.send(c);
    }
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
    this.changed.delete(c);
    if (!this.clients.delete(c)) return;
    for (const other of this.clients) if (other.userId === c.userId) return;
    this.watching.get(c.userId)?.();
    this.watching.delete(c.userId);
    this.shown.delete(c.userId);
  }
}
