import type { Signal, StreamStatus } from '../../../src/contracts/signals';
import { every, type Clock, type Disposer } from './news.types';

/** The part of an HTTP response the stream writes to (a `ServerResponse` in production). */
export interface StreamSink {
  write(chunk: string | Uint8Array): boolean;
  end(): void;
  destroy(): void;
  readonly writableLength: number;
}

export interface StreamOptions {
  clock: Clock;
  /** Milliseconds between heartbeat comments (15 s). */
  heartbeatMs?: number;
  /** A client with more unsent bytes than this is dropped (512 KB). */
  maxBufferedBytes?: number;
  onDrop?: () => void;
  /**
   * Runs the flush of the frames published in one turn (default: `setImmediate`, so that frames of the
   * same turn share one write). Tests pass a synchronous one.
   */
  defer?: (flush: () => void) => void;
}

interface Frame {
  rev: number;
  frame: string;
  signal: Signal;
}

interface Client {
  sink: StreamSink;
  /** Live frames held while the client's missed signals are being replayed; null once live. */
  held: Frame[] | null;
  /** The account's feed filter: only the signals it passes are written (none: every signal). */
  passes: ((signal: Signal) => boolean) | null;
}

export const STREAM_DEFAULTS = { heartbeatMs: 15_000, maxBufferedBytes: 512 * 1024 } as const;

export function signalFrame(rev: number, signal: Signal): string {
  return `id: ${rev}\nevent: signal\ndata: ${JSON.stringify(signal)}\n\n`;
}

/** The signal with the server's send time in its timeline: the receipt's last server-side stage. */
export function stamped(signal: Signal, sentAt: number): Signal {
  const timeline = signal.timeline ?? {
    published_at: signal.published_at,
    received_at: signal.received_at,
    analysed_at: null,
  };
  return { ...signal, timeline: { ...timeline, sent_at: new Date(sentAt).toISOString() } };
}

export function statusFrame(rev: number, status: StreamStatus): string {
  return `id: ${rev}\nevent: status\ndata: ${JSON.stringify(status)}\n\n`;
}

/**
 * Fans signals out to server-sent-event clients. Each publish is serialised once and written to every
 * client; before each write the client's unsent bytes are checked and a slow client is dropped, never
 * buffered without bound. A heartbeat comment goes out every `heartbeatMs`. Every frame carries an
 * `id:` (the signal's revision), so a client that reconnects with `Last-Event-ID` is sent what changed.
 */
export class SignalStream {
  private readonly clients = new Set<Client>();
  private readonly o: Required<Omit<StreamOptions, 'onDrop'>> & Pick<StreamOptions, 'onDrop'>;
  private readonly defer: (flush: () => void) => void;
  private stopHeartbeat: Disposer = () => undefined;
  /** Frames published in this turn of the event loop, written together by `flush`. */
  private readonly pending: Frame[] = [];
  /** The highest revision broadcast so far: the id of a `status` frame sent mid-stream. */
  private lastRev = 0;
  readonly stats = { dropped: 0, frames: 0 };

  constructor(opts: StreamOptions) {
    this.o = { ...STREAM_DEFAULTS, defer: (f) => setImmediate(f), ...opts };
    this.defer = this.o.defer;
  }

  start(headRev: number): void {
    this.lastRev = Math.max(this.lastRev, headRev);
    this.stopHeartbeat = every(this.o.clock, this.o.heartbeatMs, () => this.heartbeat());
  }

  get size(): number {
    return this.clients.size;
  }

  get heartbeatMs(): number {
    return this.o.heartbeatMs;
  }

  /**
   * Adds a client. Frames published while `replay` runs are held and sent after the replayed ones (those
   * already replayed are skipped), so a resume neither misses nor repeats a change. With `passes` (a
   * signed-in account's feed filter) only the live signals it passes are written; `replay` filters its own.
   */
  async connect(
    sink: StreamSink,
    status: (cursor: number, resumed: number) => StreamStatus,
    resumeFrom: number | null,
    replay: (rev: number) => Promise<{ rev: number; signal: Signal }[]>,
    passes: ((signal: Signal) => boolean) | null = null,
  ): Promise<Disposer> {
    const client: Client = { sink, held: [], passes };
    this.clients.add(client);
    const missed = resumeFrom === null ? [] : await replay(resumeFrom);
    if (!this.clients.has(client)) return () => undefined;
    // Frames published but not yet flushed join this client's held list, so they are deduplicated too.
    this.flush();
    const cursor = resumeFrom ?? this.lastRev;
    sink.write('retry: 3000\n\n');
    this.write(client, statusFrame(cursor, status(cursor, missed.length)));
    const sent = new Set<number>();
    for (const m of missed) {
      sent.add(m.rev);
      this.write(client, signalFrame(m.rev, stamped(m.signal, this.o.clock.now())));
    }
    const held = client.held ?? [];
    client.held = null;
    for (const h of held) if (!sent.has(h.rev) && this.wanted(client, h)) this.write(client, h.frame);
    return () => this.disconnect(client);
  }

  private disconnect(client: Client): void {
    this.clients.delete(client);
  }

  publish(rev: number, signal: Signal): void {
    this.lastRev = Math.max(this.lastRev, rev);
    if (this.clients.size === 0) return;
    this.pending.push({ rev, frame: signalFrame(rev, stamped(signal, this.o.clock.now())), signal });
    if (this.pending.length === 1) this.defer(() => this.flush());
  }

  /**
   * Writes the frames published since the last flush. Frames of one turn of the event loop go to each
   * client as a single write: one chunk and one system call per client instead of one per frame, which
   * is most of the cost of a fan-out to thousands of streams.
   */
  private flush(): void {
    const frames = this.pending.splice(0);
    if (frames.length === 0) return;
    // Encoded once for every client rather than once per write.
    const batch = Buffer.from(frames.map((f) => f.frame).join(''));
    for (const client of this.clients) {
      if (client.held !== null) client.held.push(...frames);
      else if (client.passes === null) this.write(client, batch);
      else {
        // A filtered client gets its own write, of the frames its filter passes.
        const mine = frames.filter((f) => this.wanted(client, f));
        if (mine.length > 0) this.write(client, mine.map((f) => f.frame).join(''));
      }
    }
  }

  private wanted(client: Client, frame: Frame): boolean {
    return client.passes === null || client.passes(frame.signal);
  }

  status(status: (cursor: number) => StreamStatus): void {
    const frame = statusFrame(this.lastRev, status(this.lastRev));
    this.flush();
    for (const client of this.clients) if (client.held === null) this.write(client, frame);
  }

  private heartbeat(): void {
    for (const client of this.clients) if (client.held === null) this.write(client, ': heartbeat\n\n');
  }

  /** The back-pressure rule: a client that cannot keep up is dropped. */
  private write(client: Client, frame: string | Uint8Array): void {
    if (client.sink.writableLength > this.o.maxBufferedBytes) {
      this.stats.dropped += 1;
      this.clients.delete(client);
      this.o.onDrop?.();
      client.sink.destroy();
      return;
    }
    this.stats.frames += 1;
    client.sink.write(frame);
  }

  /** Ends every stream (graceful shutdown), after the frames already published. */
  close(): void {
    this.flush();
    this.stopHeartbeat();
    for (const client of [...this.clients]) {
      this.clients.delete(client);
      client.sink.end();
    }
  }
}
