import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** One reading of a process: resident memory and open file descriptors (sockets included). */
export interface ProcSample {
  /** Milliseconds since the sampling started. */
  at: number;
  rssMb: number;
  fds: number;
  /**
   * The descriptors that are not files on disk: sockets, pipes, event and timer descriptors, what
   * clients come and go with. Files are the database's and the logs' own: the embedded database opens
   * a table's free-space and visibility maps the first time it vacuums it, and keeps them open.
   */
  handles: number;
}

/** VmRSS of `/proc/<pid>/status` in MB, and the entries of `/proc/<pid>/fd`: all, and those not files. */
export function readProc(pid: number): { rssMb: number; fds: number; handles: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1]);
  if (!Number.isFinite(kb)) throw new Error(`no VmRSS in /proc/${pid}/status`);
  const fds = readdirSync(`/proc/${pid}/fd`);
  let files = 0;
  for (const fd of fds) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('/')) files += 1;
    } catch {
      // closed between the listing and the read
    }
  }
  return { rssMb: Math.round((kb / 1024) * 10) / 10, fds: fds.length, handles: fds.length - files };
}

/** Reads the process every `everyMs` until `stop()`; the samples are kept in order. */
export function sampleProc(pid: number, everyMs: number) {
  const started = performance.now();
  const samples: ProcSample[] = [];
  const take = () => samples.push({ at: Math.round(performance.now() - started), ...readProc(pid) });
  take();
  const timer = setInterval(take, everyMs);
  return {
    samples,
    stop(): ProcSample[] {
      clearInterval(timer);
      take();
      return samples;
    },
  };
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** Latencies in 1 ms buckets (up to 120 s), so that millions of deliveries cost a fixed array. */
export class Histogram {
  private readonly buckets = new Uint32Array(120_001);
  count = 0;

  add(ms: number): void {
    const b = Math.min(this.buckets.length - 1, Math.max(0, Math.round(ms)));
    this.buckets[b] = (this.buckets[b] ?? 0) + 1;
    this.count += 1;
  }

  /** The smallest bucket (ms) at or below which a share `p` of the values fall; NaN when empty. */
  percentile(p: number): number {
    if (this.count === 0) return NaN;
    const want = Math.ceil(p * this.count);
    let seen = 0;
    for (let b = 0; b < this.buckets.length; b += 1) {
      seen += this.buckets[b] ?? 0;
      if (seen >= want) return b;
    }
    return this.buckets.length - 1;
  }
}
