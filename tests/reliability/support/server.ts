import { performance } from 'node:perf_hooks';
import { freePort, startServerProcess, waitForHealth, type ServerProcess } from '../../helpers/process';

/**
 * The real server (`server/main.ts` in a child process) on one port and one data store, across lives:
 * started, killed with SIGKILL, started again on the same data. Keeps every life's output for failures.
 */
export class CrashableServer {
  private proc: ServerProcess | null = null;
  private earlier = '';

  private constructor(
    readonly port: number,
    private readonly env: Record<string, string>,
  ) {}

  static async create(env: Record<string, string>): Promise<CrashableServer> {
    return new CrashableServer(await freePort(), env);
  }

  get base(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The running life's process id (the server itself: `node --import tsx`, no wrapper). */
  get pid(): number {
    const pid = this.proc?.child.pid;
    if (pid === undefined) throw new Error('the server is not running');
    return pid;
  }

  /** Starts a new life; answers the milliseconds from spawn to a healthy `/api/healthz`. */
  async start(): Promise<number> {
    if (this.proc !== null) throw new Error('the server is already running');
    const started = performance.now();
    const proc = startServerProcess({ PORT: String(this.port), LOG_LEVEL: 'warn', ...this.env });
    this.proc = proc;
    const exited = proc.exit.then((code) => {
      throw new Error(`the server exited with ${code} before it was healthy:\n${proc.output()}`);
    });
    await Promise.race([waitForHealth(this.base, 90_000), exited]);
    exited.catch(() => undefined);
    return Math.round(performance.now() - started);
  }

  /** SIGKILL: no shutdown hook runs, nothing is flushed; resolves once the process is gone. */
  async kill(): Promise<void> {
    await this.end('SIGKILL');
  }

  /** A clean stop (SIGTERM), as between runs. */
  async stop(): Promise<void> {
    await this.end('SIGTERM');
  }

  output(): string {
    return this.earlier + (this.proc?.output() ?? '');
  }

  private async end(signal: NodeJS.Signals): Promise<void> {
    const proc = this.proc;
    if (proc === null) return;
    await proc.stop(signal);
    this.earlier += `${proc.output()}--- ${signal} ---\n`;
    this.proc = null;
  }
}
