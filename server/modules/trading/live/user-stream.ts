import WebSocket from 'ws';
import { backoffMs } from '../../../../src/contracts/backoff';
import { every, systemClock, type Clock, type Disposer } from '../../../../src/contracts/clock';
import type { BinanceClient, BinanceCredentials } from '../../exchanges/binance-client';
import { ExchangeError, VenueAnswerUnreadable, readVenueAnswer } from '../exchange-error';
import type { ExchangeEvent } from '../exchange';
import { AlgoUpdateEvent, CONDITIONAL_TYPES, ListenKeyAnswer } from './binance-answers';
import { conditionalUpdateOf } from './binance-shapes';

export interface UserStreamOptions {
  client: BinanceClient;
  credentials(): Promise<BinanceCredentials>;
  /** The stream address with `{listenKey}` where the key goes. */
  urlTemplate: string;
  /** Account and order events, as Binance sends them; ALGO_UPDATE read into our shape. */
  onEvent(event: ExchangeEvent): void;
  /** The stream is (re)connected: what it missed while down is read again by the caller. */
  onConnected?(): void;
  /**
   * The stream dropped and is reconnecting in `retryInMs`, or (`dropped` set) an event it could not read
   * was dropped while the stream stays up.
   */
  onProblem?(problem: { reason: string; retryInMs: number; dropped?: string }): void;
  /** Keep-alive period of the listen key (Binance: valid 60 min, extend before; default 30 min). */
  keepAliveMs?: number;
  /** A connection lives at most 24 h at Binance; it is renewed before (default 23 h). */
  maxConnectionMs?: number;
  /** First reconnect delay; doubles up to `maxBackoffMs` (default 1 s → 60 s), with equal jitter. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** The jitter's randomness (`Math.random`); tests pass a fixed one. */
  random?: () => number;
  /** Keep-alives, renewal and back-off wait on this clock (the system's by default). */
  clock?: Clock;
}

/** `PUT`/`DELETE /fapi/v1/listenKey` for a key Binance no longer knows. */
const LISTEN_KEY_GONE = -1125;
const LISTEN_KEY_PATH = '/fapi/v1/listenKey';

/**
 * One account's user-data stream: a listen key (`POST /fapi/v1/listenKey`), kept alive with `PUT` while
 * the stream is wanted, a WebSocket to the key's stream, and a new key and connection after
 * `listenKeyExpired`, a dropped connection (backing off 1 s, 2 s, … 60 s with jitter) or 23 h of age.
 * `stop()` closes the socket and deletes the key.
 */
export class UserDataStream {
  private socket: WebSocket | null = null;
  private listenKey: string | null = null;
  private stopped = false;
  private failures = 0;
  private keepAlive: Disposer | null = null;
  private renew: Disposer | null = null;
  private retry: Disposer | null = null;
  private readonly clock: Clock;
  /** Which connect is current: a stale one's answers are ignored. */
  private generation = 0;
  private extending = false;

  constructor(private readonly opts: UserStreamOptions) {
    this.clock = opts.clock ?? systemClock;
  }

  start(): void {
    void this.connect();
  }

  get connected(): boolean {
    return this.socket?.readyState === WebSocket.OPEN;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.generation += 1;
    this.clearTimers();
    this.socket?.removeAllListeners();
    this.socket?.on('error', () => undefined);
    this.socket?.close(1000);
    this.socket = null;
    const key = this.listenKey;
    this.listenKey = null;
    if (key !== null) {
      const creds = await this.opts.credentials().catch(() => null);
      if (creds !== null)
        await this.opts.client.keyed('DELETE', LISTEN_KEY_PATH, creds.apiKey).catch(() => undefined);
    }
  }

  private clearTimers(): void {
    this.keepAlive?.();
    this.renew?.();
    this.retry?.();
    this.keepAlive = this.renew = this.retry = null;
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    // A newer connect (after an expiry or a drop) makes this one stale: it must not open a second socket.
    const generation = ++this.generation;
    let key: string;
    try {
      const creds = await this.opts.credentials();
      // Binance answers the account's current key (and extends it) when one is active.
      const answer = await this.opts.client.keyed<unknown>('POST', LISTEN_KEY_PATH, creds.apiKey);
      key = readVenueAnswer(ListenKeyAnswer, answer, 'the listen key').listenKey;
    } catch (err) {
      if (generation !== this.generation) return;
      this.again(
        err instanceof ExchangeError
          ? err.msg
          : err instanceof VenueAnswerUnreadable
            ? err.message
            : 'Binance did not answer the listen-key request.',
      );
      return;
    }
    if (this.stopped || generation !== this.generation) return;
    this.listenKey = key;
    const socket = new WebSocket(this.opts.urlTemplate.replace('{listenKey}', encodeURIComponent(key)), {
      handshakeTimeout: 10_000,
    });
    this.socket = socket;
    socket.on('open', () => {
      this.failures = 0;
      this.keepAlive = every(this.clock, this.opts.keepAliveMs ?? 30 * 60_000, () => void this.extend());
      this.renew = this.clock.setTimer(
        () => this.reconnect('renewed before 24 h'),
        this.opts.maxConnectionMs ?? 23 * 3_600_000,
      );
      this.opts.onConnected?.();
    });
    socket.on('message', (data: Buffer) => this.receive(data));
    socket.on('error', () => undefined); // 'close' follows and reconnects
    socket.on('close', () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.clearTimers();
      this.again('the user-data stream closed');
    });
  }

  private receive(data: Buffer): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(data.toString());
    } catch {
      return;
    }
    // `null`, a number or a list is no event.
    if (parsed === null || typeof parsed !== 'object') return;
    const event = parsed as { e?: unknown; o?: unknown };
    if (event.e === 'listenKeyExpired') {
      this.listenKey = null;
      this.reconnect('listen key expired');
      return;
    }
    if (event.e === 'ACCOUNT_UPDATE' || event.e === 'ORDER_TRADE_UPDATE') {
      this.opts.onEvent(event as ExchangeEvent);
    }
    if (event.e === 'ALGO_UPDATE') this.algoUpdate(event);
  }

  /**
   * A conditional order changed state. One of a type the app does not hold (a STOP limit order set on
   * Binance's site) is ignored; one that cannot be read is dropped with a word to `onProblem`.
   */
  private algoUpdate(event: { o?: unknown }): void {
    const type = (event.o as { o?: unknown } | null | undefined)?.o;
    if (typeof type === 'string' && !(CONDITIONAL_TYPES as readonly string[]).includes(type)) return;
    let update: ExchangeEvent;
    try {
      update = conditionalUpdateOf(readVenueAnswer(AlgoUpdateEvent, event, 'a conditional-order update'));
    } catch (err) {
      const reason = err instanceof VenueAnswerUnreadable ? err.message : String(err);
      this.opts.onProblem?.({
        reason: `${reason}; the event was dropped`,
        retryInMs: 0,
        dropped: 'ALGO_UPDATE',
      });
      return;
    }
    this.opts.onEvent(update);
  }

  /** Extends the key; a key Binance forgot means a new key and connection. */
  private async extend(): Promise<void> {
    // One keep-alive at a time, and only for the connection it was sent for.
    if (this.extending) return;
    this.extending = true;
    const generation = this.generation;
    try {
      const creds = await this.opts.credentials();
      await this.opts.client.keyed('PUT', LISTEN_KEY_PATH, creds.apiKey);
    } catch (err) {
      if (err instanceof ExchangeError && err.code === LISTEN_KEY_GONE && generation === this.generation) {
        this.listenKey = null;
        this.reconnect('listen key expired');
      }
      // Anything else: the next period tries again, and a dead key ends in listenKeyExpired.
    } finally {
      this.extending = false;
    }
  }

  private reconnect(reason: string): void {
    const old = this.socket;
    this.socket = null;
    this.clearTimers();
    old?.removeAllListeners();
    old?.on('error', () => undefined);
    old?.close(1000);
    this.opts.onProblem?.({ reason, retryInMs: 0 });
    void this.connect();
  }

  private again(reason: string): void {
    if (this.stopped) return;
    const retryInMs = backoffMs(this.failures, {
      baseMs: this.opts.backoffMs ?? 1_000,
      maxMs: this.opts.maxBackoffMs ?? 60_000,
      jitter: 'equal',
      random: this.opts.random,
    });
    this.failures += 1;
    this.opts.onProblem?.({ reason, retryInMs });
    this.retry = this.clock.setTimer(() => void this.connect(), retryInMs);
  }
}
