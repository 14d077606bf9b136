import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readdirSync, readFileSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { recordConfigSecrets, scanDir, scanPath, watchFetch } from '../secrets/record';
import { seedDataDir } from './pglite-template';

export const ROOT = path.resolve(import.meta.dirname, '../..');

/** A port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

export interface ServerProcess {
  child: ChildProcess;
  output(): string;
  exit: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * What every server a test starts runs with unless the test says otherwise: offline stand-ins only, so
 * that no test ever reaches past loopback.
 */
export const OFFLINE_ENV = { MARKET_SOURCE: 'sim', NEWS_SOURCES: 'replay', ANALYZER: 'local' } as const;

/**
 * Starts the server from its sources (`node --import tsx server/main.ts`; `npm start` runs the same code
 * bundled into dist/server): the server is the process itself, so a signal reaches it directly. Only the
 * given environment is passed. `opts.bundle` runs `dist/server/main.mjs` from `opts.cwd` instead.
 */
export function startServerProcess(
  env: Record<string, string>,
  opts: { cwd?: string; bundle?: boolean } = {},
): ServerProcess {
  const args = opts.bundle ? ['dist/server/main.mjs'] : ['--import', 'tsx', 'server/main.ts'];
  // In a test run, a fresh embedded database starts as a copy of the migrated template. Benchmarks
  // (not under vitest) measure a real first start instead.
  if (process.env.VITEST !== undefined && env.DATA_DIR !== undefined && env.DATABASE_URL === undefined) {
    seedDataDir(env.DATA_DIR);
  }
  const child = spawn(process.execPath, args, {
    cwd: opts.cwd ?? ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      NODE_ENV: 'production',
      ...OFFLINE_ENV,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  let exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  if (scanDir() !== undefined) exit = recordForScan(child, env, exit);
  return {
    child,
    output: () => out,
    exit,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exit;
    },
  };
}

/**
 * With SECRET_SCAN_DIR set: the process's configured secrets, its output in a log file, what tests fetch
 * from it, and a copy of its DATA_DIR taken when it exits (before the test removes the folder).
 */
function recordForScan(
  child: ChildProcess,
  env: Record<string, string>,
  exit: Promise<number | null>,
): Promise<number | null> {
  recordConfigSecrets(env);
  if (env.PORT !== undefined) watchFetch(`http://127.0.0.1:${env.PORT}`);
  const log = createWriteStream(scanPath('logs', 'process', '.log'));
  log.on('error', () => undefined);
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  // 'close' follows 'exit' once the output pipes are drained: the log then holds every line.
  const closed = new Promise((resolve) => child.on('close', resolve));
  return exit.then(async (code) => {
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 2000))]);
    await new Promise((resolve) => log.end(resolve));
    if (env.DATA_DIR !== undefined) {
      await cp(env.DATA_DIR, scanPath('data', 'process'), { recursive: true }).catch(() => undefined);
    }
    return code;
  });
}

/** Polls /api/healthz until it answers 200. */
export async function waitForHealth(baseUrl: string, ms = 60_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${baseUrl}/api/healthz`);
      if (res.ok) return (await res.json()) as Record<string, unknown>;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`server at ${baseUrl} did not become healthy`);
}

/** What a finished child process printed, and how it ended. */
export interface ProcessRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command (from the project folder unless `cwd`) with only PATH, HOME and `env`; `input` goes to its stdin. */
export function runProcess(
  command: string,
  args: readonly string[],
  options: { env?: Record<string, string>; input?: string; cwd?: string } = {},
): Promise<ProcessRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin?.end(options.input ?? '');
  });
}

/**
 * A server run as a supervisor runs it (systemd, Docker, a terminal): in a process group of its own,
 * its output piped to this process. `signal()` reaches the whole group, as Ctrl+C does; `stopReading()`
 * leaves the pipes unread (they fill at 64 KiB), `goAway()` closes them, as a supervisor that exits.
 */
export interface SupervisedProcess {
  /** The group's id (the id of the process started). */
  pgid: number;
  output(): string;
  signal(signal: NodeJS.Signals): void;
  stopReading(): void;
  goAway(): void;
  /** True while any process of the group is alive. */
  alive(): boolean;
  /** Resolves with the milliseconds until no process of the group is left, or null after `ms`. */
  gone(ms: number): Promise<number | null>;
}

export function superviseProcess(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
): SupervisedProcess {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      NODE_ENV: 'production',
      ...OFFLINE_ENV,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const pgid = child.pid;
  if (pgid === undefined) throw new Error(`${command} did not start`);
  let out = '';
  const keep = (d: Buffer) => (out = (out + d.toString()).slice(-200_000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  for (const stream of [child.stdout, child.stderr]) stream.on('error', () => undefined);
  const alive = () => groupMembers(pgid).length > 0;
  return {
    pgid,
    output: () => out,
    signal: (signal) => process.kill(-pgid, signal),
    stopReading() {
      child.stdout.pause();
      child.stderr.pause();
    },
    goAway() {
      child.stdout.destroy();
      child.stderr.destroy();
    },
    alive,
    async gone(ms) {
      const started = performance.now();
      while (performance.now() - started < ms) {
        if (!alive()) return Math.round(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return alive() ? null : Math.round(performance.now() - started);
    },
  };
}

/**
 * The processes of a group that still run (from /proc; a zombie, dead but not yet reaped by its parent,
 * does not count): their ids and command names.
 */
export function groupMembers(pgid: number): string[] {
  const members: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    const close = stat.lastIndexOf(')');
    const [state, , pgrp] = stat.slice(close + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z')
      members.push(`${entry} ${stat.slice(stat.indexOf('(') + 1, close)}`);
  }
  return members;
}
