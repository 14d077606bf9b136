import { createHmac } from 'node:crypto';
import WebSocket from 'ws';
import { backoffMs } from '../../../../../src/contracts/backoff';
import { every, systemClock, type Clock, type Disposer } from '../../../../../src/contracts/clock';
import type { VenueCredentials } from '../../../exchanges/credentials';
import { StreamPush, StreamReply } from './answers';

/** The private topics the adapter reads (all categories; the translation keeps the linear rows). */
export const TOPICS = ['order', 'execution', 'position'] as const;

/** `{"op":"auth","args":[apiKey, expires, hex HMAC-SHA256(secret, "GET/realtime" + expires)]}`. */
export function authMessage(creds: VenueCredentials, expires: number): string {
  const signature = createHmac('sha256', creds.secret).update(`GET/realtime${expires}`).digest('hex');
  return JSON.stringify({ op: 'auth', args: [creds.apiKey, expires, signature] });
}

export interface BybitStreamOptions {
  /** `wss://stream.bybit.com/v5/private` (demo: `wss://stream-demo.bybit.com/v5/private`). */
  url: string;
  credentials(): Promise<VenueCredentials>;
  /** Bybit's clock (the REST client's, kept in step): `expires` is on it. */
  serverNow(): number;
  /** One push: its topic, its rows and when Bybit made it. */
  onPush(topic: string, rows: readonly unknown[], at: number): void;
  /** Authenticated and subscribed (again): what was missed while down is read again by the caller. */
  onConnected?(): void;
  /** The stream dropped (or was refused) and is reconnecting in `retryInMs`. */
  onProblem?(problem: { reason: string; retryInMs: number; dropped?: string }): void;
  /** Ping period (Bybit asks for one every 20 s). */
  pingMs?: number;
  /** How far ahead the auth's `expires` lies (default 10 s). */
  authAheadMs?: number;
  /** First reconnect delay; doubles up to `maxBackoffMs` (default 1 s → 60 s), with equal jitter. */
  backoffMs?: number;
  maxBackoffMs?: number;
  random?: () => number;
  clock?: Clock;
}

/**
 * One account's private stream on Bybit: connect, authenticate (`op: auth`), subscribe to `order`,
 * `execution` and `position`, ping every 20 s. A connection that drops, is refused, or stays silent for
 * two ping periods is opened again after a back-off (1 s, 2 s, … 60 s, with jitter). `stop()` closes it.
 */
export class BybitPrivateStream {
  private socket: WebSocket | null = null;
  private ready = false;
  private stopped = false;
  private failures = 0;
  private ping: Disposer | null = null;
  private retry: Disposer | null = null;
  private lastHeard = 0;
  private generation = 0;
  private readonly clock: Clock;

  constructor(private readonly opts: BybitStreamOptions) {
    this.clock = opts.clock ?? systemClock;
  }

  start(): void {
    void this.connect();
  }

  /** Authenticated and subscribed now. */
  get connected(): boolean {
    return this.ready && this.socket?.readyState === WebSocket.OPEN;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.generation += 1;
    this.drop();
    this.retry?.();
    this.retry = null;
  }

  private drop(): void {
    this.ping?.();
    this.ping = null;
    this.ready = false;
    const old = this.socket;
    this.socket = null;
    old?.removeAllListeners();
    old?.on('error', () => undefined);
    old?.close(1000);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const generation = ++this.generation;
    let creds: VenueCredentials;
    try {
      creds = await this.opts.credentials();
    } catch {
      if (generation === this.generation) this.again('the key could not be read for the private stream');
      return;
    }
    if (this.stopped || generation !== this.generation) return;
    const socket = new WebSocket(this.opts.url, { handshakeTimeout: 10_000 });
    this.socket = socket;
    socket.on('open', () => {
      this.lastHeard = this.clock.now();
      socket.send(authMessage(creds, this.opts.serverNow() + (this.opts.authAheadMs ?? 10_000)));
      const period = this.opts.pingMs ?? 20_000;
      this.ping = every(this.clock, period, () => {
        if (this.clock.now() - this.lastHeard > 2 * period) {
          socket.terminate();
          return;
        }
        if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ op: 'ping' }));
      });
    });
    socket.on('message', (data: Buffer) => this.receive(socket, data));
    socket.on('error', () => undefined); // 'close' follows and reconnects
    socket.on('close', () => {
      if (this.socket !== socket) return;
      this.drop();
      this.again('the private stream closed');
    });
  }

  private receive(socket: WebSocket, data: Buffer): void {
    this.lastHeard = this.clock.now();
    let parsed: unknown;
    try {
      parsed = JSON.parse(data.toString());
    } catch {
      return;
    }
    const push = StreamPush.safeParse(parsed);
    if (push.success) {
      this.opts.onPush(push.data.topic, push.data.data, push.data.creationTime ?? this.clock.now());
      return;
    }
    const reply = StreamReply.safeParse(parsed);
    if (!reply.success) return;
    const { op, success, ret_msg: msg } = reply.data;
    if (op === 'auth') {
      if (success === true) socket.send(JSON.stringify({ op: 'subscribe', args: [...TOPICS] }));
      else this.refused(`Bybit refused the private stream's authentication: ${msg ?? 'no reason given'}`);
    } else if (op === 'subscribe') {
      if (success !== true) {
        this.refused(`Bybit refused the subscription: ${msg ?? 'no reason given'}`);
        return;
      }
      this.ready = true;
      this.failures = 0;
      this.opts.onConnected?.();
    }
  }

  private refused(reason: string): void {
    this.drop();
    this.again(reason);
  }

  private again(reason: string): void {
    if (this.stopped) return;
    const retryInMs = backoffMs(this.failures, {
      baseMs: this.opts.backoffMs ?? 1_000,
      maxMs: this.opts.maxBackoffMs ?? 60_000,
      jitter: 'equal',
      ...(this.opts.random === undefined ? {} : { random: this.opts.random }),
    });
    this.failures += 1;
    this.opts.onProblem?.({ reason, retryInMs });
    this.retry?.();
    this.retry = this.clock.setTimer(() => void this.connect(), retryInMs);
  }
}
