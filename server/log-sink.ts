import { writeSync } from 'node:fs';

/** Writes bytes to a descriptor without waiting: answers how many it took, or throws (EAGAIN, EPIPE…). */
export type WriteFn = (fd: number, buf: Buffer, offset: number, length: number) => number;

export interface LogSinkOptions {
  /** Bytes kept while the reader is not reading; lines beyond are dropped and counted. */
  maxQueuedBytes?: number;
  /** How long to wait before trying a full pipe again. */
  retryMs?: number;
  /** The write call (tests pass one that answers EAGAIN or EPIPE). */
  write?: WriteFn;
}

/**
 * Where the server's log lines go: a descriptor (standard output) written without ever blocking the
 * process or keeping it alive.
 *
 * pino's own destination writes through the thread pool and, when the process exits, loops until all
 * it holds is written. A supervisor that stops reading leaves the pipe full: that loop, or a write
 * parked in the thread pool, then keeps a stopped server alive for good. Here each line is written at
 * once if the pipe takes it; what it does not take waits in a bounded queue, tried again on a timer that
 * does not hold the process; a reader that is gone (EPIPE) ends the sink, and nothing is thrown.
 * `flushAtExit()` makes one attempt and returns.
 */
export class LogSink {
  private readonly queue: Buffer[] = [];
  private queuedBytes = 0;
  private timer: NodeJS.Timeout | null = null;
  private ended = false;
  /** Lines that were never written (queue over its bound, or the reader gone). */
  dropped = 0;
  private droppedNoted = 0;
  private readonly maxQueuedBytes: number;
  private readonly retryMs: number;
  private readonly writeFn: WriteFn;

  constructor(
    private readonly fd: number,
    opts: LogSinkOptions = {},
  ) {
    this.maxQueuedBytes = opts.maxQueuedBytes ?? 1024 * 1024;
    this.retryMs = opts.retryMs ?? 50;
    this.writeFn = opts.write ?? writeSync;
  }

  /** True once the reader is gone: nothing more is written. */
  get closed(): boolean {
    return this.ended;
  }

  /** Bytes waiting for the reader. */
  get pending(): number {
    return this.queuedBytes;
  }

  write(line: string): void {
    if (this.ended) {
      this.dropped += 1;
      return;
    }
    const buf = Buffer.from(line);
    if (this.queuedBytes + buf.length > this.maxQueuedBytes) {
      this.dropped += 1;
      return;
    }
    this.queue.push(buf);
    this.queuedBytes += buf.length;
    this.drain();
  }

  /** One last attempt without waiting, for `process.on('exit')`: what the pipe does not take is lost. */
  flushAtExit(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.drain(false);
  }

  private drain(retry = true): void {
    while (this.queue.length > 0 && !this.ended) {
      const head = this.queue[0] as Buffer;
      let written: number;
      try {
        written = this.writeFn(this.fd, head, 0, head.length);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN' || code === 'EWOULDBLOCK' || code === 'EINTR') break;
        // EPIPE (nobody reads any more), EBADF…: nothing will ever be written again.
        this.end();
        return;
      }
      this.queuedBytes -= written;
      if (written < head.length) {
        this.queue[0] = head.subarray(written);
        break;
      }
      this.queue.shift();
    }
    if (this.ended) return;
    if (this.queue.length > 0) {
      if (retry && this.timer === null) {
        this.timer = setTimeout(() => {
          this.timer = null;
          this.drain();
        }, this.retryMs);
        this.timer.unref();
      }
      return;
    }
    if (this.dropped > this.droppedNoted) this.noteDropped();
  }

  /** Says once the pipe takes lines again how many were lost while it did not. */
  private noteDropped(): void {
    const lost = this.dropped - this.droppedNoted;
    this.droppedNoted = this.dropped;
    const note = JSON.stringify({
      level: 40,
      time: Date.now(),
      msg: `${lost} log line${lost === 1 ? '' : 's'} dropped: standard output did not take them`,
    });
    this.write(`${note}\n`);
  }

  private end(): void {
    this.ended = true;
    this.dropped += this.queue.length;
    this.queue.length = 0;
    this.queuedBytes = 0;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}

/**
 * The sink for standard output, with standard output and error made safe for a reader that goes away:
 * opening `process.stdout` puts a pipe in non-blocking mode (a write then answers EAGAIN instead of
 * waiting), and an EPIPE on either stream is not an uncaught error.
 */
export function stdoutSink(opts: LogSinkOptions = {}): LogSink {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  const sink = new LogSink(process.stdout.fd, opts);
  process.on('exit', () => sink.flushAtExit());
  return sink;
}
