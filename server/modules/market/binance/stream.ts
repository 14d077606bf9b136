import WebSocket from 'ws';
import { backoffMs } from '../../../../src/contracts/backoff';
import type { FeedStatus } from '../../../../src/contracts/market';
import { every, type Clock, type Disposer } from '../clock';
import { Listeners } from '../source';

export interface StreamLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface StreamOptions {
  /** Stream base, e.g. wss://fstream.binance.com; frames come from `${base}/market/stream?streams=…`. */
  baseUrl: string;
  clock: Clock;
  log: StreamLog;
  /** No frame for this long → degraded, drop the connection and reconnect. */
  staleMs?: number;
  /** Binance closes a connection after 24 h: reconnect before that. */
  maxAgeMs?: number;
  /** Reconnects wait from `backoffMinMs`, doubling up to `backoffMaxMs`, with equal jitter. */
  backoffMinMs?: number;
  backoffMaxMs?: number;
  /** The jitter's randomness (`Math.random`); tests pass a fixed one. */
  random?: () => number;
}

export const STREAM_DEFAULTS = {
  staleMs: 15_000,
  maxAgeMs: 23 * 3_600_000 + 30 * 60_000,
  backoffMinMs: 1_000,
  backoffMaxMs: 30_000,
  random: Math.random,
} as const;

/**
 * One combined-stream connection to Binance that stays up: reconnects with exponential back-off and
 * jitter (so the servers of a deployment do not all reconnect at the same moment), reconnects before the 24 h limit, and a watchdog drops a connection that went quiet. Pings from
 * Binance are answered by `ws` itself (autoPong). Streams added later are SUBSCRIBEd on the open socket
 * and part of the URL on the next connect.
 */
export class BinanceStream {
  private readonly o: Required<StreamOptions>;
  private readonly streams = new Set<string>();
  private socket: WebSocket | null = null;
  private attempts = 0;
  private lastFrameAt = 0;
  private receivedSinceOpen = false;
  private state: FeedStatus = 'degraded';
  private running = false;
  private nextId = 1;
  private cancelReconnect: Disposer = () => undefined;
  private cancelRotate: Disposer = () => undefined;
  private stopWatchdog: Disposer = () => undefined;
  readonly frames = new Listeners<string>();
  readonly statuses = new Listeners<FeedStatus>();
  /** Connection failures before any frame arrived (auto mode gives up on the first). */
  readonly failures = new Listeners<Error>();
  readonly stats = { connects: 0, stale: 0, rotations: 0 };

  constructor(opts: StreamOptions, initialStreams: readonly string[]) {
    this.o = { ...STREAM_DEFAULTS, ...opts };
    for (const s of initialStreams) this.streams.add(s);
  }

  status(): FeedStatus {
    return this.state;
  }

  /**
   * Why the feed is degraded, for people: connected but quiet ("stalled"), or without a connection;
   * null while frames flow.
   */
  problem(): string | null {
    if (this.state === 'ok') return null;
    if (this.socket?.readyState === WebSocket.OPEN) return 'market feed stalled';
    return this.stats.connects > 1 ? 'market feed disconnected: reconnecting' : 'market feed connecting';
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopWatchdog = every(this.o.clock, Math.max(250, Math.floor(this.o.staleMs / 4)), () =>
      this.checkStale(),
    );
    this.connect();
  }

  stop(): void {
    this.running = false;
    this.stopWatchdog();
    this.cancelReconnect();
    this.cancelRotate();
    this.socket?.removeAllListeners();
    this.socket?.on('error', () => undefined);
    this.socket?.terminate();
    this.socket = null;
    this.setStatus('degraded');
  }

  add(stream: string): void {
    if (this.streams.has(stream)) return;
    this.streams.add(stream);
    this.method('SUBSCRIBE', stream);
  }

  remove(stream: string): void {
    if (!this.streams.delete(stream)) return;
    this.method('UNSUBSCRIBE', stream);
  }

  url(): string {
    return `${this.o.baseUrl.replace(/\/+$/, '')}/market/stream?streams=${[...this.streams].join('/')}`;
  }

  private method(method: 'SUBSCRIBE' | 'UNSUBSCRIBE', stream: string): void {
    if (this.socket?.readyState !== WebSocket.OPEN) return;
    this.socket.send(JSON.stringify({ method, params: [stream], id: this.nextId++ }));
  }

  private connect(): void {
    if (!this.running) return;
    this.stats.connects += 1;
    this.receivedSinceOpen = false;
    const socket = new WebSocket(this.url(), { handshakeTimeout: 10_000 });
    this.socket = socket;
    socket.on('open', () => {
      this.lastFrameAt = this.o.clock.now();
      this.cancelRotate = this.o.clock.setTimer(() => this.rotate(), this.o.maxAgeMs);
    });
    socket.on('message', (data, isBinary) => {
      if (isBinary) return;
      this.lastFrameAt = this.o.clock.now();
      if (!this.receivedSinceOpen) {
        this.receivedSinceOpen = true;
        this.attempts = 0;
      }
      this.setStatus('ok');
      this.frames.emit(data.toString());
    });
    socket.on('error', (err) => {
      this.o.log.warn({ err: err.message }, 'binance stream error');
      if (!this.receivedSinceOpen) this.failures.emit(err);
    });
    socket.on('close', (code) => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.cancelRotate();
      this.setStatus('degraded');
      if (!this.running) return;
      if (!this.receivedSinceOpen) this.failures.emit(new Error(`closed before any data (${code})`));
      const delay = backoffMs(this.attempts, {
        baseMs: this.o.backoffMinMs,
        maxMs: this.o.backoffMaxMs,
        jitter: 'equal',
        random: this.o.random,
      });
      this.attempts += 1;
      this.o.log.warn({ code, delay }, 'binance stream closed; reconnecting');
      this.cancelReconnect = this.o.clock.setTimer(() => this.connect(), delay);
    });
  }

  /** Before Binance's 24 h limit: open a fresh connection right away. */
  private rotate(): void {
    const old = this.socket;
    if (old === null) return;
    this.stats.rotations += 1;
    this.o.log.info({}, 'binance stream: reconnecting before the 24 h limit');
    this.socket = null;
    old.removeAllListeners();
    old.on('error', () => undefined);
    old.close(1000, 'rotate');
    this.connect();
  }

  private checkStale(): void {
    const socket = this.socket;
    if (socket === null || socket.readyState !== WebSocket.OPEN) return;
    if (this.o.clock.now() - this.lastFrameAt <= this.o.staleMs) return;
    this.stats.stale += 1;
    this.o.log.warn({ staleMs: this.o.staleMs }, 'binance stream went quiet; reconnecting');
    this.setStatus('degraded');
    socket.terminate();
  }

  private setStatus(next: FeedStatus): void {
    if (next === this.state) return;
    this.state = next;
    this.statuses.emit(next);
  }
}
