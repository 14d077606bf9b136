import { constants } from 'node:os';
import type { FastifyInstance } from 'fastify';

export interface ShutdownOptions {
  /** After this long the process exits with 1, whatever is still open, naming what was. */
  deadlineMs: number;
  /** Websockets that have not answered the close frame by then are cut. */
  socketGraceMs?: number;
  /** HTTP requests still running by then lose their connection (the work they started goes on). */
  requestGraceMs?: number;
  /**
   * A signal this soon after the first is the same stop: Ctrl+C under `npm start` reaches the server
   * twice, from the terminal and forwarded by npm. A later one exits at once.
   */
  repeatWindowMs?: number;
  /** `process.exit` (tests pass a recorder). */
  exit: (code: number) => void;
  /** `process.getActiveResourcesInfo` (what keeps the event loop alive), for the deadline's log line. */
  activeResources?: () => string[];
  /** Where SIGTERM and SIGINT arrive (`process`; tests pass an emitter). */
  signals?: NodeJS.EventEmitter;
}

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/** The exit status a shell gives a process ended by `signal`: 128 + its number. */
export function signalStatus(signal: string): number {
  const n = (constants.signals as Record<string, number | undefined>)[signal];
  return n === undefined ? 1 : 128 + n;
}

/**
 * Stops the server on SIGTERM or SIGINT and always ends the process: it stops accepting, closes every
 * websocket with 1001 (cut after `socketGraceMs` if the peer does not answer), ends the signal streams,
 * stops the jobs, closes the database (Fastify's close hooks) and exits 0. If that is not done within
 * `deadlineMs` it logs what is still pending and exits 1. A second signal (after `repeatWindowMs`) exits at once. The handlers
 * stay installed until the process is gone, so no later signal falls back to being ignored.
 * Answers `stop(signal)`, which does the same as the signal.
 */
export function exitOnSignals(app: FastifyInstance, opts: ShutdownOptions): (signal: string) => void {
  const source = opts.signals ?? process;
  const deadlineMs = opts.deadlineMs;
  const socketGraceMs = opts.socketGraceMs ?? Math.min(2_000, Math.floor(deadlineMs / 4));
  const requestGraceMs = opts.requestGraceMs ?? Math.floor(deadlineMs / 2);
  const activeResources = opts.activeResources ?? (() => process.getActiveResourcesInfo());
  const repeatWindowMs = opts.repeatWindowMs ?? 1_000;
  let stopping: string | null = null;
  let stoppingSince = 0;
  let exited = false;
  const timers: NodeJS.Timeout[] = [];
  const exit = (code: number) => {
    if (exited) return;
    exited = true;
    for (const timer of timers) clearTimeout(timer); // clears intervals too
    opts.exit(code);
  };
  const later = (ms: number, run: () => void) => {
    const timer = setTimeout(run, ms);
    // The deadline must not itself keep a process alive whose work is done.
    timer.unref();
    timers.push(timer);
  };

  const stop = (signal: string) => {
    if (exited) return;
    if (stopping !== null) {
      if (performance.now() - stoppingSince < repeatWindowMs) return;
      app.log.warn({ signal }, `${signal} while stopping after ${stopping}: exiting now`);
      exit(signalStatus(signal));
      return;
    }
    stopping = signal;
    stoppingSince = performance.now();
    app.log.info(
      { signal, deadlineMs },
      'shutting down: no new connections, closing sockets and streams, stopping jobs, flushing the database',
    );
    later(deadlineMs, () => {
      app.log.error(
        { pending: activeResources(), deadlineMs },
        `shutdown did not finish within ${deadlineMs} ms: exiting with what is still pending`,
      );
      exit(1);
    });
    closeSockets(app, socketGraceMs, later);
    // A request that was running when the listener closed leaves a keep-alive connection behind when it
    // ends: it is closed then, rather than after the keep-alive timeout. Still running by
    // `requestGraceMs`, it is cut.
    const idle = setInterval(() => app.server.closeIdleConnections(), 100);
    idle.unref();
    timers.push(idle);
    later(requestGraceMs, () => app.server.closeAllConnections());
    app.close().then(
      () => {
        app.log.info({ signal }, 'stopped');
        exit(0);
      },
      (err: unknown) => {
        app.log.error({ err }, 'shutdown failed');
        exit(1);
      },
    );
  };
  for (const signal of SIGNALS) source.on(signal, () => stop(signal));
  return stop;
}

/** Every websocket gets a close frame with 1001 now; those whose peer has not answered are cut later. */
function closeSockets(app: FastifyInstance, graceMs: number, later: (ms: number, run: () => void) => void) {
  const server = (app as Partial<Pick<FastifyInstance, 'websocketServer'>>).websocketServer;
  if (server === undefined) return;
  for (const client of server.clients) client.close(1001, 'server shutting down');
  later(graceMs, () => {
    for (const client of server.clients) client.terminate();
  });
}
