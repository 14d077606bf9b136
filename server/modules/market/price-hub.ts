import type { Candle, Interval, PriceItem, PriceSocketMessage } from '../../../src/contracts/market';
import { every, type Disposer } from './clock';
import {
  HUB_DEFAULTS,
  parseClientFrame,
  unknownSymbolsDetail,
  type HubClient,
  type HubFeed,
  type HubOptions,
  type PeerSocket,
} from './price-hub.types';

export type { HubClient, HubFeed, HubOptions, PeerSocket } from './price-hub.types';
export { HUB_DEFAULTS } from './price-hub.types';

interface ChartFeed {
  candle: Candle | null;
  dirty: boolean;
  users: number;
  dispose: Disposer;
}

/**
 * Fans prices out to price-socket clients. Prices are coalesced per symbol and sent in one frame per
 * client at most every `flushMs`: a tick after a quiet spell goes out on the next turn, ticks that come
 * sooner wait for the rest of the period and go out together with the latest price of each symbol.
 * Clients with the same subscription share the serialised (and encoded) frame. Before
 * each send the client's unsent bytes are checked: a slow client is dropped, never buffered without
 * bound. A heartbeat (JSON frame plus a WebSocket ping) goes out every `heartbeatMs`; a client that did
 * not answer the previous ping is dropped.
 */
export class PriceHub {
  private readonly o: Required<Omit<HubOptions, 'onDrop'>> & Pick<HubOptions, 'onDrop'>;
  private readonly clients = new Set<HubClient>();
  private readonly latest = new Map<string, PriceItem>();
  private dirty = new Set<string>();
  private readonly charts = new Map<string, ChartFeed>();
  private readonly disposers: Disposer[] = [];
  /** The flush waiting to run, and when the last one sent anything. */
  private flushTimer: Disposer | null = null;
  private lastFlush = -Infinity;
  readonly stats = { droppedSlow: 0, droppedDead: 0, droppedFlood: 0, frames: 0 };

  constructor(
    private readonly feed: HubFeed,
    opts: HubOptions,
  ) {
    this.o = { ...HUB_DEFAULTS, ...opts };
  }

  start(): void {
    this.disposers.push(
      this.feed.onTicks((ticks) => {
        for (const item of ticks) {
          this.latest.set(item.s, item);
          this.dirty.add(item.s);
        }
        this.scheduleFlush();
      }),
      every(this.o.clock, this.o.heartbeatMs, () => this.heartbeat()),
    );
  }

  /** A flush as soon as `flushMs` has passed since the last one (on the next turn if it has). */
  private scheduleFlush(): void {
    if (this.flushTimer !== null) return;
    const wait = Math.max(0, this.lastFlush + this.o.flushMs - this.o.clock.now());
    this.flushTimer = this.o.clock.setTimer(() => {
      this.flushTimer = null;
      this.flush();
    }, wait);
  }

  close(): void {
    this.flushTimer?.();
    this.flushTimer = null;
    for (const dispose of this.disposers.splice(0)) dispose();
    for (const client of [...this.clients]) this.disconnect(client);
  }

  get size(): number {
    return this.clients.size;
  }

  connect(socket: PeerSocket): HubClient {
    const client: HubClient = {
      socket,
      all: false,
      symbols: new Set(),
      key: '',
      chart: null,
      alive: true,
      tokens: this.o.messageBurst,
      refilledAt: this.o.clock.now(),
      ignored: 0,
      warnedAt: -Infinity,
    };
    this.clients.add(client);
    this.send(client, {
      type: 'hello',
      source: this.feed.kind,
      status: this.feed.status(),
      heartbeatMs: this.o.heartbeatMs,
    });
    return client;
  }

  disconnect(client: HubClient): void {
    if (!this.clients.delete(client)) return;
    this.setChart(client, null);
  }

  pong(client: HubClient): void {
    client.alive = true;
  }

  /**
   * Whether a client may send one more request now. Over its rate the request is ignored, with one error
   * frame a second at most; a client that keeps going is disconnected, so no client can make the server
   * do work (or write frames) faster than its rate, however fast it reads.
   */
  private admit(client: HubClient): boolean {
    const now = this.o.clock.now();
    const rate = this.o.messagesPerSecond / 1000;
    client.tokens = Math.min(this.o.messageBurst, client.tokens + (now - client.refilledAt) * rate);
    client.refilledAt = now;
    if (client.tokens >= 1) {
      client.tokens -= 1;
      client.ignored = 0;
      return true;
    }
    client.ignored += 1;
    if (client.ignored >= this.o.maxIgnoredMessages) {
      this.drop(client, 'flood');
    } else if (now - client.warnedAt >= 1000) {
      client.warnedAt = now;
      this.send(client, {
        type: 'error',
        detail: `Too many requests: at most ${this.o.messagesPerSecond} a second. This one was ignored.`,
      });
    }
    return false;
  }

  /** One text frame from a client. */
  receive(client: HubClient, text: string): void {
    if (!this.clients.has(client) || !this.admit(client)) return;
    const req = parseClientFrame(text);
    if (typeof req === 'string') {
      this.send(client, { type: 'error', detail: req });
      return;
    }
    if (req.op === 'candles') {
      if (req.symbol !== null && this.feed.find(req.symbol) === undefined) {
        this.send(client, { type: 'error', detail: `Unknown symbol: ${req.symbol.toUpperCase()}.` });
        return;
      }
      this.setChart(client, req.symbol === null ? null : `${req.symbol.toUpperCase()}:${req.interval}`);
      return;
    }
    if (req.symbols === '*') {
      client.all = req.op === 'subscribe';
      if (req.op === 'unsubscribe') client.symbols.clear();
      this.rekey(client);
      if (client.all) this.snapshot(client, [...this.latest.keys()]);
      return;
    }
    const known: string[] = [];
    const unknown: string[] = [];
    for (const raw of req.symbols) {
      const info = this.feed.find(raw);
      if (info === undefined) unknown.push(raw);
      else known.push(info.symbol);
    }
    if (unknown.length > 0) this.send(client, { type: 'error', detail: unknownSymbolsDetail(unknown) });
    if (req.op === 'subscribe') {
      const after = new Set([...client.symbols, ...known]);
      if (after.size > this.o.maxSymbolsPerClient) {
        this.send(client, {
          type: 'error',
          detail: `At most ${this.o.maxSymbolsPerClient} symbols per connection; subscribe to "*" for every symbol.`,
        });
        return;
      }
    }
    for (const s of known) {
      if (req.op === 'subscribe') client.symbols.add(s);
      else client.symbols.delete(s);
    }
    this.rekey(client);
    if (req.op === 'subscribe') this.snapshot(client, known);
  }

  private rekey(client: HubClient): void {
    client.key = client.all ? '*' : [...client.symbols].sort().join(',');
  }

  /** The latest known price of `symbols`, right after a subscribe. */
  private snapshot(client: HubClient, symbols: string[]): void {
    const data = symbols.flatMap((s) => this.latest.get(s) ?? []);
    if (data.length > 0) this.send(client, { type: 'prices', t: this.o.clock.now(), data });
  }

  private setChart(client: HubClient, key: string | null): void {
    if (client.chart === key) return;
    if (client.chart !== null) {
      const feed = this.charts.get(client.chart);
      if (feed !== undefined && --feed.users === 0) {
        feed.dispose();
        this.charts.delete(client.chart);
      }
    }
    client.chart = key;
    if (key === null) return;
    const existing = this.charts.get(key);
    if (existing !== undefined) {
      existing.users += 1;
      return;
    }
    const [symbol = '', interval] = key.split(':') as [string, Interval];
    const feed: ChartFeed = { candle: null, dirty: false, users: 1, dispose: () => undefined };
    this.charts.set(key, feed);
    feed.dispose = this.feed.watchCandles(symbol, interval, (candle) => {
      feed.candle = candle;
      feed.dirty = true;
      this.scheduleFlush();
    });
  }

  /** Sends each client the prices that changed for it since the last flush, and its chart's candle. */
  flush(): void {
    const dirty = this.dirty;
    const chartsChanged = [...this.charts.values()].some((c) => c.dirty);
    if (dirty.size === 0 && !chartsChanged) return;
    this.dirty = new Set();
    const t = this.o.clock.now();
    this.lastFlush = t;
    const frames = new Map<string, Buffer | null>();
    const candleFrames = new Map<string, string | null>();
    for (const client of [...this.clients]) {
      if (!this.writable(client)) continue;
      let frame = frames.get(client.key);
      if (frame === undefined) {
        frame = this.priceFrame(client, dirty, t);
        frames.set(client.key, frame);
      }
      if (frame !== null) this.sendRaw(client, frame);
      if (client.chart !== null) {
        let candle = candleFrames.get(client.chart);
        if (candle === undefined) {
          candle = this.candleFrame(client.chart);
          candleFrames.set(client.chart, candle);
        }
        if (candle !== null) this.sendRaw(client, candle);
      }
    }
    for (const feed of this.charts.values()) feed.dirty = false;
  }

  /** Encoded once for every client of the subscription, rather than once per send. */
  private priceFrame(client: HubClient, dirty: Set<string>, t: number): Buffer | null {
    const data: PriceItem[] = [];
    if (client.all) {
      for (const s of dirty) data.push(this.latest.get(s) as PriceItem);
    } else if (client.symbols.size < dirty.size) {
      for (const s of client.symbols) if (dirty.has(s)) data.push(this.latest.get(s) as PriceItem);
    } else {
      for (const s of dirty) if (client.symbols.has(s)) data.push(this.latest.get(s) as PriceItem);
    }
    return data.length === 0
      ? null
      : Buffer.from(JSON.stringify({ type: 'prices', t, data } satisfies PriceSocketMessage));
  }

  private candleFrame(key: string): string | null {
    const feed = this.charts.get(key);
    if (feed === undefined || !feed.dirty || feed.candle === null) return null;
    const [s = '', i] = key.split(':') as [string, Interval];
    return JSON.stringify({ type: 'candle', s, i, candle: feed.candle } satisfies PriceSocketMessage);
  }

  private heartbeat(): void {
    const frame = JSON.stringify({
      type: 'heartbeat',
      t: this.o.clock.now(),
      source: this.feed.kind,
      status: this.feed.status(),
    } satisfies PriceSocketMessage);
    for (const client of [...this.clients]) {
      if (!client.alive) {
        this.drop(client, 'dead');
        continue;
      }
      if (!this.writable(client)) continue;
      if (client.socket.ping !== undefined) {
        client.alive = false;
        client.socket.ping();
      }
      this.sendRaw(client, frame);
    }
  }

  /** The back-pressure rule: a client that cannot keep up is dropped. */
  private writable(client: HubClient): boolean {
    if (client.socket.bufferedAmount <= this.o.maxBufferedBytes) return true;
    this.drop(client, 'slow');
    return false;
  }

  private drop(client: HubClient, reason: 'slow' | 'dead' | 'flood'): void {
    if (reason === 'slow') this.stats.droppedSlow += 1;
    else if (reason === 'dead') this.stats.droppedDead += 1;
    else this.stats.droppedFlood += 1;
    this.o.onDrop?.(reason);
    this.disconnect(client);
    if (reason === 'flood' && client.socket.close !== undefined) {
      client.socket.close(1008, 'Too many requests.');
    } else {
      client.socket.terminate();
    }
  }

  private send(client: HubClient, message: PriceSocketMessage): void {
    if (this.writable(client)) this.sendRaw(client, JSON.stringify(message));
  }

  private sendRaw(client: HubClient, frame: string | Buffer): void {
    this.stats.frames += 1;
    client.socket.send(frame, { binary: false });
  }
}
