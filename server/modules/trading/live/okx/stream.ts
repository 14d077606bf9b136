import { createHmac } from 'node:crypto';
import WebSocket from 'ws';
import { backoffMs } from '../../../../../src/contracts/backoff';
import { every, systemClock, type Clock, type Disposer } from '../../../../../src/contracts/clock';
import type { VenueCredentials } from '../../../exchanges/credentials';
import { StreamEvent, StreamPush } from './answers';

/** The private channels the adapter reads on `/ws/v5/private`: its orders' fills and its positions. */
export const PRIVATE_CHANNELS = [
  { channel: 'orders', instType: 'SWAP' },
  { channel: 'positions', instType: 'SWAP' },
] as const;
/** The algo channels on `/ws/v5/business`: stops and targets, and trailing stops. */
export const ALGO_CHANNELS = [
  { channel: 'orders-algo', instType: 'SWAP' },
  { channel: 'algo-advance', instType: 'SWAP' },
] as const;

/**
 * `{"op":"login","args":[{apiKey, passphrase, timestamp, sign}]}`: `timestamp` in seconds (OKX's clock),
 * `sign` the base64 HMAC-SHA256(secret, timestamp + "GET" + "/users/self/verify").
 */
export function loginMessage(creds: VenueCredentials, timestampSeconds: number): string {
  const timestamp = String(timestampSeconds);
  const sign = createHmac('sha256', creds.secret)
    .update(`${timestamp}GET/users/self/verify`)
    .digest('base64');
  return JSON.stringify({
    op: 'login',
    args: [{ apiKey: creds.apiKey, passphrase: creds.passphrase ?? '', timestamp, sign }],
  });
}

export interface OkxStreamOptions {
  /** `wss://ws.okx.com:8443/ws/v5/private` (demo `wss://wspap.okx.com:8443/ws/v5/private`), or business. */
  url: string;
  channels: readonly { channel: string; instType: string }[];
  credentials(): Promise<VenueCredentials>;
  /** OKX's clock in ms (the REST client's, kept in step): the login's timestamp is on it. */
  serverNow(): number;
  /** One push: its channel and rows. */
  onPush(channel: string, rows: readonly unknown[]): void;
  /** Logged in and subscribed (again): what was missed while down is read again by the caller. */
  onConnected?(): void;
  /** The stream dropped (or was refused) and is reconnecting in `retryInMs`. */
  onProblem?(problem: { reason: string; retryInMs: number; dropped?: string }): void;
  /** Ping period: a text `ping` (OKX drops a connection silent for 30 s; default 25 s). */
  pingMs?: number;
  /** First reconnect delay; doubles up to `maxBackoffMs` (default 1 s → 60 s), with equal jitter. */
  backoffMs?: number;
  maxBackoffMs?: number;
  random?: () => number;
  clock?: Clock;
}

/**
 * One account's private stream on OKX: connect, log in, subscribe to the channels, send `ping` every
 * 25 s. A connection that drops, is refused, or stays silent for two ping periods is opened again after
 * a back-off (1 s, 2 s, … 60 s, with jitter). `stop()` closes it.
 */
export class OkxPrivateStream {
  private socket: WebSocket | null = null;
  private ready = false;
  private stopped = false;
  private failures = 0;
  private subscribed = new Set<string>();
  private ping: Disposer | null = null;
  private retry: Disposer | null = null;
  private lastHeard = 0;
  private generation = 0;
  private readonly clock: Clock;

  constructor(private readonly opts: OkxStreamOptions) {
    this.clock = opts.clock ?? systemClock;
  }

  start(): void {
    void this.connect();
  }

  /** Logged in and subscribed to every channel now. */
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
    this.subscribed.clear();
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
      socket.send(loginMessage(creds, Math.floor(this.opts.serverNow() / 1000)));
      const period = this.opts.pingMs ?? 25_000;
      this.ping = every(this.clock, period, () => {
        if (this.clock.now() - this.lastHeard > 2 * period) {
          socket.terminate();
          return;
        }
        if (socket.readyState === WebSocket.OPEN) socket.send('ping');
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
    const text = data.toString();
    if (text === 'pong') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return;
    }
    const push = StreamPush.safeParse(parsed);
    if (push.success) {
      this.opts.onPush(push.data.arg.channel, push.data.data);
      return;
    }
    const reply = StreamEvent.safeParse(parsed);
    if (!reply.success) return;
    const { event, code, msg } = reply.data;
    if (event === 'login') {
      if (code === '0') socket.send(JSON.stringify({ op: 'subscribe', args: this.opts.channels }));
      else this.refused(`OKX refused the private stream's login: ${code ?? ''} ${msg ?? 'no reason given'}`);
    } else if (event === 'error') {
      this.refused(`OKX refused the private stream: ${code ?? ''} ${msg ?? 'no reason given'}`);
    } else if (event === 'subscribe') {
      const arg = (parsed as { arg?: { channel?: unknown } }).arg;
      if (typeof arg?.channel === 'string') this.subscribed.add(arg.channel);
      if (this.ready || !this.opts.channels.every((c) => this.subscribed.has(c.channel))) return;
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
