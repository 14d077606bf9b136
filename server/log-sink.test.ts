import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LogSink, type WriteFn } from './log-sink';

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(code), { code });
}

/** A pipe that takes `room` bytes, then answers EAGAIN until `read()` empties it. */
function fakePipe(room: number) {
  let free = room;
  let received = '';
  let calls = 0;
  const write: WriteFn = (_fd, buf, offset, length) => {
    calls += 1;
    if (free === 0) throw errno('EAGAIN');
    const n = Math.min(free, length);
    received += buf.subarray(offset, offset + n).toString();
    free -= n;
    return n;
  };
  return {
    write,
    read: () => (free = room),
    setRoom: (n: number) => (room = free = n),
    received: () => received,
    calls: () => calls,
  };
}

describe('the log sink', () => {
  afterEach(() => vi.useRealTimers());

  it('writes what a full pipe did not take once it takes it again, in order, and holds nothing', () => {
    vi.useFakeTimers();
    const pipe = fakePipe(10);
    const sink = new LogSink(1, { write: pipe.write, retryMs: 50 });
    sink.write('line one\n');
    sink.write('line two\n');
    sink.write('line three\n');
    expect(pipe.received()).toBe('line one\nl');
    expect(sink.pending).toBe(19);
    // One retry is scheduled, not one per line.
    expect(vi.getTimerCount()).toBe(1);
    pipe.read();
    vi.advanceTimersByTime(50);
    pipe.read();
    vi.advanceTimersByTime(50);
    pipe.read();
    vi.advanceTimersByTime(50);
    expect(pipe.received()).toBe('line one\nline two\nline three\n');
    expect(sink.pending).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('ends quietly when the reader is gone (EPIPE): no throw, later lines counted as dropped', () => {
    const write = vi.fn<WriteFn>(() => {
      throw errno('EPIPE');
    });
    const sink = new LogSink(1, { write });
    expect(() => sink.write('a\n')).not.toThrow();
    expect(() => sink.write('b\n')).not.toThrow();
    sink.flushAtExit();
    expect(sink.closed).toBe(true);
    expect(sink.dropped).toBe(2);
    expect(write).toHaveBeenCalledTimes(1);
  });

  it('keeps a bounded queue while nobody reads, then says how many lines were dropped', () => {
    vi.useFakeTimers();
    const pipe = fakePipe(0);
    const sink = new LogSink(1, { write: pipe.write, maxQueuedBytes: 100, retryMs: 10 });
    for (let i = 0; i < 50; i += 1) sink.write(`line ${String(i).padStart(2, '0')}\n`);
    // 8-byte lines: 12 fit in 100 bytes, the other 38 are dropped.
    expect(sink.pending).toBe(96);
    expect(sink.dropped).toBe(38);
    pipe.setRoom(1_000_000);
    vi.advanceTimersByTime(10);
    const lines = pipe.received().trim().split('\n');
    expect(lines.slice(0, 12)).toEqual(
      Array.from({ length: 12 }, (_, i) => `line ${String(i).padStart(2, '0')}`),
    );
    expect(JSON.parse(lines[12] ?? '')).toMatchObject({
      level: 40,
      msg: '38 log lines dropped: standard output did not take them',
    });
    expect(lines).toHaveLength(13);
  });

  it('makes one attempt at exit and returns, however full the pipe stays', () => {
    const pipe = fakePipe(0);
    const sink = new LogSink(1, { write: pipe.write });
    sink.write('last words\n');
    const before = pipe.calls();
    sink.flushAtExit();
    expect(pipe.calls() - before).toBe(1);
    expect(sink.pending).toBe('last words\n'.length);
  });

  it('lets a process exit while its stdout pipe is full and nobody reads it', async () => {
    const script = path.resolve(import.meta.dirname, '../tests/fixtures/log-sink-child.ts');
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: path.resolve(import.meta.dirname, '..'),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    // The parent never reads: the pipe fills at 64 KiB and stays full.
    child.stdout.pause();
    const started = performance.now();
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const late = new Promise<'still running'>((resolve) =>
      setTimeout(() => resolve('still running'), 15_000),
    );
    try {
      expect(await Promise.race([exited, late])).toBe(0);
      expect(performance.now() - started).toBeLessThan(15_000);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      child.stdout.destroy();
    }
  }, 30_000);
});
