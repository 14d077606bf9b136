import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll } from 'vitest';
import { useDatabase, type DbTarget, type ServerDatabase } from '../../helpers/db';
import { between, SHORT, sleep } from './mode';
import { CrashableServer } from './server';

/** Kills per scenario: three in the full run, one with `--short`. */
export const KILL_ROUNDS = SHORT ? 1 : 3;

/** "3 kills", "1 kill", for a scenario's title. */
export const kills = (n: number) => `${n} kill${n > 1 ? 's' : ''}`;

/** A scenario's server and the fresh database it runs on, once the suite's `beforeAll` has run. */
export interface KillServer {
  readonly server: CrashableServer;
  readonly database: ServerDatabase;
}

/**
 * The server a kill scenario kills, on a fresh database of `target`: made and started before the
 * suite's tests, stopped and its database removed after them. `env` starts what outlives every kill (a
 * venue's double, as the venue would) and answers what the server runs with besides its database;
 * `setup` readies the running server (users, keys, rules); `teardown` closes what `env` started.
 */
export function useKillServer(
  target: DbTarget,
  opts: {
    env?: () => Promise<Record<string, string>> | Record<string, string>;
    setup?: (server: CrashableServer) => Promise<void>;
    teardown?: () => Promise<void>;
  } = {},
): KillServer {
  let server: CrashableServer | undefined;
  let database: ServerDatabase | undefined;
  beforeAll(async () => {
    const env = (await opts.env?.()) ?? {};
    database = await useDatabase(target, { server: true });
    server = await CrashableServer.create({ ...database.env, ...env });
    await server.start();
    await opts.setup?.(server);
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    await opts.teardown?.();
    await database?.cleanup();
  });
  return {
    get server() {
      if (server === undefined) throw new Error('the server is not up: the suite has not started it');
      return server;
    },
    get database() {
      if (database === undefined) throw new Error('no database yet: the suite has not made it');
      return database;
    },
  };
}

/** A round's load, as the runner handles it around the kill. */
export interface KillBurst {
  /** Ends the sending before the kill: what is in flight then finishes or is cut. */
  stop?(): void;
  /** Settles once every sender has returned; awaited after the kill, before the restart. */
  done?: Promise<unknown>;
}

/** One round's kill and restart, for what the scenario does after it. */
export interface Kill<B> {
  round: number;
  burst: B;
  /** Milliseconds from the burst's start to the kill. */
  killMs: number;
  /** When the kill came (ms epoch). */
  killedAt: number;
  /** Milliseconds from the restart's spawn to a healthy server. */
  restartMs: number;
}

export type RoundFigures = Record<string, number>;

/**
 * Once `n` of the burst's requests were acknowledged, and up to 100 ms more: the kill then lands anywhere
 * in a request, not just after an answer.
 */
export async function midBurst(burst: { acknowledged(n: number): Promise<void> }, n: number): Promise<void> {
  await burst.acknowledged(n);
  await sleep(between(0, 100));
}

/**
 * Rounds of burst, kill -9 and restart on the same data: each round starts `burst`, waits for `killAt`,
 * stops the burst and reads `atKill`, kills the server with SIGKILL, waits for the burst's senders, starts
 * the server again and lets `restart` do what a client does about what the kill cut. Answers each round's
 * figures (its number, killMs and restartMs, with what `atKill` and `restart` answered) and when each kill
 * came. What the scenario then audits is its own.
 */
export async function runKillScenario<B extends KillBurst>(opts: {
  server: CrashableServer;
  rounds?: number;
  burst: (round: number) => B;
  killAt: (burst: B) => Promise<void>;
  atKill?: (burst: B) => RoundFigures;
  restart?: (kill: Kill<B>) => Promise<RoundFigures>;
}): Promise<{ rounds: RoundFigures[]; killedAt: number[] }> {
  const rounds: RoundFigures[] = [];
  const killedAt: number[] = [];
  for (let round = 1; round <= (opts.rounds ?? KILL_ROUNDS); round += 1) {
    const burst = opts.burst(round);
    const burstStarted = performance.now();
    await opts.killAt(burst);
    burst.stop?.();
    const atKill = opts.atKill?.(burst) ?? {};
    const killMs = Math.round(performance.now() - burstStarted);
    const at = Date.now();
    killedAt.push(at);
    await opts.server.kill();
    await burst.done;
    const restartMs = await opts.server.start();
    const after = (await opts.restart?.({ round, burst, killMs, killedAt: at, restartMs })) ?? {};
    rounds.push({ round, ...atKill, killMs, restartMs, ...after });
  }
  return { rounds, killedAt };
}
