import http from 'node:http';
import WebSocket from 'ws';
import { SocketTicketResponse } from '../../../src/contracts/auth';
import { SYMBOLS } from '../../../src/contracts/symbols';
import type { Api } from './api';
import { Histogram } from './proc';

export type ClientKind = 'sse' | 'prices' | 'positions';

/** Wall-clock milliseconds with sub-millisecond precision: the stamp news items carry, and arrivals. */
export const now = () => performance.timeOrigin + performance.now();

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;
const uniform = ([min, max]: readonly [number, number]) => min + Math.random() * (max - min);

/** What the crowd saw, by kind of client. */
export class CrowdStats {
  /** Connections that opened (an SSE response's headers, a socket's `open`). */
  served: Record<ClientKind, number> = { sse: 0, prices: 0, positions: 0 };
  /** Connections that never opened, or failed while open (not counting a slow client's drop). */
  failed: Record<ClientKind, number> = { sse: 0, prices: 0, positions: 0 };
  failures: string[] = [];
  /** Reading clients the server closed before they left. */
  cutShort: Record<ClientKind, number> = { sse: 0, prices: 0, positions: 0 };
  cuts: string[] = [];
  /** Clients that stopped reading, and of those the server closed while they did not read. */
  slow: Record<ClientKind, number> = { sse: 0, prices: 0, positions: 0 };
  slowDropped: Record<ClientKind, number> = { sse: 0, prices: 0, positions: 0 };
  /** Stalled streams the server kept open although they fell this many bytes behind (see `behind`). */
  slowKept: { kind: ClientKind; heldMs: number; behindBytes: number }[] = [];
  /** ingest → arrival at a reading SSE client, of the `analyzing` and the `completed` publish. */
  analyzing = new Histogram();
  completed = new Histogram();
  /** Bytes of pushed data per kind, over all reading clients. */
  bytes: Record<ClientKind, number> = { sse: 0, prices: 0, positions: 0 };

  fail(kind: ClientKind, why: string): void {
    this.failed[kind] += 1;
    if (this.failures.length < 20) this.failures.push(`${kind}: ${why}`);
  }

  cut(kind: ClientKind, why: string): void {
    this.cutShort[kind] += 1;
    if (this.cuts.length < 20) this.cuts.push(`${kind}: ${why}`);
  }
}

export interface CrowdOptions {
  base: string;
  /** How many clients are connected at any time (each leaving one is replaced). */
  size: number;
  /** Shares of SSE streams, price sockets and positions sockets. */
  mix: Record<ClientKind, number>;
  /** Share of clients that stop reading entirely once connected. */
  slowShare: number;
  /** How long a reading client stays, in ms, picked uniformly. */
  lifetimeMs: readonly [number, number];
  /** How long a slow client stays stalled before it reads again to see whether it was dropped. */
  slowHoldMs: number;
  /** Signed-in users, for positions sockets (a ticket each). */
  users: readonly Api[];
  stats: CrowdStats;
}

/**
 * One SSE stream that reads everything for the whole run: the bytes it received tell how far behind a
 * stalled stream is (what the server would have had to buffer for it).
 */
export class ReferenceStream {
  bytes = 0;
  private req: http.ClientRequest | null = null;

  async open(base: string): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.req = http.get(`${base}/api/signals/stream`, { agent: false }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`reference stream answered ${res.statusCode}`));
        res.on('data', (chunk: Buffer) => (this.bytes += chunk.length));
        resolve();
      });
      this.req.on('error', reject);
    });
  }

  close(): void {
    this.req?.destroy();
  }
}

/**
 * `size` clients of the three kinds, joining and leaving all the time: each stays a random lifetime and
 * is replaced when it goes. A `slowShare` of them stop reading as soon as they are connected (the socket
 * paused: the kernel's buffers fill, then the server's) and, after `slowHoldMs`, read again: a
 * connection that then ends was dropped by the server.
 */
export class Crowd {
  private running = false;
  private stopping: () => void = () => undefined;
  private readonly stopped = new Promise<void>((resolve) => (this.stopping = resolve));
  private readonly live = new Set<Promise<void>>();
  private readonly wsBase: string;

  constructor(
    private readonly o: CrowdOptions,
    private readonly reference: ReferenceStream,
  ) {
    this.wsBase = o.base.replace(/^http/, 'ws');
  }

  get connected(): number {
    return this.live.size;
  }

  /** Starts the crowd, the first `size` clients spread over `rampMs`. */
  start(rampMs: number): void {
    this.running = true;
    for (let i = 0; i < this.o.size; i += 1) {
      void sleep((rampMs * i) / this.o.size).then(() => this.spawn());
    }
  }

  /** Every client leaves (slow ones read once more to see whether they were dropped); resolves when all did. */
  async stop(): Promise<void> {
    this.running = false;
    this.stopping();
    while (this.live.size > 0) await Promise.allSettled([...this.live]);
  }

  private spawn(): void {
    if (!this.running) return;
    const r = Math.random();
    const kind: ClientKind =
      r < this.o.mix.sse ? 'sse' : r < this.o.mix.sse + this.o.mix.prices ? 'prices' : 'positions';
    const slow = Math.random() < this.o.slowShare;
    const run = this.client(kind, slow)
      .catch((err: unknown) => this.o.stats.fail(kind, err instanceof Error ? err.message : String(err)))
      .finally(() => {
        this.live.delete(run);
        // A little later, as a real client coming back would.
        if (this.running) void sleep(Math.random() * 200).then(() => this.spawn());
      });
    this.live.add(run);
  }

  /** Waits `ms`, or less when the crowd stops. */
  private until(ms: number): Promise<void> {
    return Promise.race([sleep(ms), this.stopped]);
  }

  private async client(kind: ClientKind, slow: boolean): Promise<void> {
    if (kind === 'sse') return this.sse(slow);
    return this.socket(kind, slow);
  }

  private async sse(slow: boolean): Promise<void> {
    const { stats } = this.o;
    let closed = false;
    let res: http.IncomingMessage | null = null;
    const req = http.get(`${this.o.base}/api/signals/stream`, { agent: false });
    const ended = new Promise<void>((resolve) => {
      req.on('close', () => {
        closed = true;
        resolve();
      });
    });
    req.on('error', (err) => {
      if (res === null) stats.fail('sse', err.message);
    });
    res = await new Promise<http.IncomingMessage | null>((resolve) => {
      req.on('response', resolve);
      void ended.then(() => resolve(null));
    });
    if (res === null) return;
    if (res.statusCode !== 200) {
      stats.fail('sse', `answered ${res.statusCode}`);
      req.destroy();
      return;
    }
    stats.served.sse += 1;
    res.on('error', () => undefined);
    res.on('close', () => {
      closed = true;
    });

    if (slow) {
      stats.slow.sse += 1;
      res.pause();
      res.socket.pause();
      const from = this.reference.bytes;
      const started = performance.now();
      await this.until(this.o.slowHoldMs);
      const behindBytes = this.reference.bytes - from;
      res.socket.resume();
      res.resume();
      // Dropped: the end comes as soon as what the kernel held is read.
      await Promise.race([ended, sleep(5000)]);
      if (closed) stats.slowDropped.sse += 1;
      else stats.slowKept.push({ kind: 'sse', heldMs: Math.round(performance.now() - started), behindBytes });
      req.destroy();
      await ended;
      return;
    }

    let carry = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      stats.bytes.sse += chunk.length;
      const text = carry + chunk;
      const last = text.lastIndexOf('\n\n');
      if (last < 0) {
        carry = text;
        return;
      }
      carry = text.slice(last + 2);
      const arrived = now();
      for (const frame of text.slice(0, last).split('\n\n')) {
        if (!frame.includes('\nevent: signal\n')) continue;
        const at = frame.indexOf('[t=');
        if (at < 0) continue;
        const stamp = Number(frame.slice(at + 3, frame.indexOf(']', at)));
        const hist = frame.includes('"status":"completed"') ? stats.completed : stats.analyzing;
        hist.add(arrived - stamp);
      }
    });
    await Promise.race([ended, this.until(uniform(this.o.lifetimeMs))]);
    if (closed) stats.cut('sse', 'the stream ended while the client read it');
    req.destroy();
    await ended;
  }

  private async socket(kind: 'prices' | 'positions', slow: boolean): Promise<void> {
    const { stats } = this.o;
    let url = `${this.wsBase}/api/ws/prices`;
    if (kind === 'positions') {
      const api = pick(this.o.users);
      const ticket = await api.send('POST', '/ws/ticket');
      const parsed = SocketTicketResponse.safeParse(ticket?.body);
      if (!parsed.success) {
        stats.fail(kind, `ticket: ${ticket === null ? 'no answer' : ticket.status}`);
        return;
      }
      url = `${this.wsBase}/api/ws/positions?ticket=${encodeURIComponent(parsed.data.ticket)}`;
    }
    const ws = new WebSocket(url, { perMessageDeflate: false });
    let opened = false;
    let closeInfo = '';
    const ended = new Promise<void>((resolve) =>
      ws.on('close', (code, reason) => {
        closeInfo = `${code} ${reason.toString()}`;
        resolve();
      }),
    );
    ws.on('error', (err) => {
      if (!opened) stats.fail(kind, err.message);
    });
    ws.on('message', (data: Buffer) => {
      if (!slow) stats.bytes[kind] += data.length;
    });
    await Promise.race([new Promise((resolve) => ws.once('open', resolve)), ended]);
    if (ws.readyState !== WebSocket.OPEN) return;
    opened = true;
    stats.served[kind] += 1;
    if (kind === 'prices') {
      const symbols = slow ? '*' : Array.from({ length: 10 }, () => pick(SYMBOLS).symbol);
      ws.send(JSON.stringify({ op: 'subscribe', symbols }));
    }
    let closed = false;
    void ended.then(() => (closed = true));

    if (slow) {
      stats.slow[kind] += 1;
      ws.pause();
      const started = performance.now();
      await this.until(this.o.slowHoldMs);
      ws.resume();
      await Promise.race([ended, sleep(5000)]);
      if (closed) stats.slowDropped[kind] += 1;
      else stats.slowKept.push({ kind, heldMs: Math.round(performance.now() - started), behindBytes: 0 });
      ws.terminate();
      await ended;
      return;
    }
    await Promise.race([ended, this.until(uniform(this.o.lifetimeMs))]);
    if (closed) stats.cut(kind, `closed by the server: ${closeInfo}`);
    ws.terminate();
    await ended;
  }
}

export interface CrowdProcessOptions {
  base: string;
  size: number;
  mix: Record<ClientKind, number>;
  slowShare: number;
  lifetimeMs: [number, number];
  slowHoldMs: number;
  rampMs: number;
  /** Access tokens of the signed-in users (positions sockets take a ticket with one). */
  tokens: string[];
}

export function figuresOf(stats: CrowdStats, connected: number, referenceBytes: number) {
  return {
    connected,
    referenceBytes,
    served: stats.served,
    failed: stats.failed,
    failures: stats.failures,
    cutShort: stats.cutShort,
    cuts: stats.cuts,
    slow: stats.slow,
    slowDropped: stats.slowDropped,
    slowKept: stats.slowKept,
    analyzing: {
      count: stats.analyzing.count,
      p50: stats.analyzing.percentile(0.5),
      p99: stats.analyzing.percentile(0.99),
    },
    completed: {
      count: stats.completed.count,
      p50: stats.completed.percentile(0.5),
      p99: stats.completed.percentile(0.99),
    },
    bytes: stats.bytes,
  };
}
export type CrowdFigures = ReturnType<typeof figuresOf>;
