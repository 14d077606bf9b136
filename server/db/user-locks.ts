import pg from 'pg';
import type { Database } from './client';
import { Batcher } from './batch';
import { appError } from '../plugins/errors';

/**
 * A user's turn at the risk envelope: one decision's checks and its order (or a proposal's answer, its
 * checks and its order) while no other decision of the same user is checked or sent, in this process or
 * any other on the same database. The budget, the cooldown and the open positions a check reads are then
 * what the decisions before it left, wherever they were made. Users never wait for each other.
 */
export interface UserLocks {
  /**
   * Runs `work` holding the user's lock. `alone` is true when nobody else held it since this holder last
   * did: what this process keeps in memory of the user's decisions is then complete. Otherwise the
   * ledger has to be read.
   */
  run<T>(userId: string, work: (alone: boolean) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface LockLog {
  warn(obj: object, msg: string): void;
}

/** One waiting line per key, first come first served, within one holder. */
class Turns {
  private readonly lines = new Map<string, { tail: Promise<void>; queued: number; last: symbol | null }>();

  /** Waits for the key's turn; answers who had it last (null when nobody waited for it since) and the release. */
  async take(key: string, holder: symbol): Promise<{ last: symbol | null; release: () => void }> {
    let line = this.lines.get(key);
    if (line === undefined) {
      line = { tail: Promise.resolve(), queued: 0, last: null };
      this.lines.set(key, line);
    }
    const before = line.tail;
    let release!: () => void;
    line.tail = new Promise<void>((resolve) => (release = resolve));
    line.queued += 1;
    await before;
    const last = line.last;
    line.last = holder;
    const taken = line;
    return {
      last,
      release: () => {
        taken.queued -= 1;
        if (taken.queued === 0 && this.lines.get(key) === taken) this.lines.delete(key);
        release();
      },
    };
  }
}

/** The holders of each embedded database (tests may run two servers on one), and their shared turns. */
const embedded = new WeakMap<object, { holders: number; turns: Turns }>();

/**
 * On PGlite every server that reaches the database is in this process: the lock is a waiting line per
 * user shared by them all, with no statement. With one server (every real deployment), `alone` is always
 * true and the rule engine's memory of fired totals stands.
 */
export class EmbeddedUserLocks implements UserLocks {
  private readonly me = Symbol('rules');
  private readonly shared: { holders: number; turns: Turns };
  private closed = false;

  constructor(database: object) {
    let shared = embedded.get(database);
    if (shared === undefined) {
      shared = { holders: 0, turns: new Turns() };
      embedded.set(database, shared);
    }
    shared.holders += 1;
    this.shared = shared;
  }

  async run<T>(userId: string, work: (alone: boolean) => Promise<T>): Promise<T> {
    const { last, release } = await this.shared.turns.take(userId, this.me);
    try {
      return await work(this.shared.holders === 1 || last === this.me);
    } finally {
      release();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.shared.holders -= 1;
  }
}

/** Longest wait for a user's lock that another process holds (its order is on its way to the venue). */
const WAIT_MS = 30_000;
const FIRST_RETRY_MS = 1;
const LAST_RETRY_MS = 25;

export interface PostgresLockOptions {
  /** Opens the connection the locks are held on (one per process, apart from the pool). */
  connect: () => Promise<pg.Client>;
  /** Namespaces the keys, so that deployments sharing a database server do not share locks. */
  prefix: string;
  log: LockLog;
  waitMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * On PostgreSQL, a session advisory lock per user, taken with `pg_try_advisory_lock` on a connection of
 * this process's own: it is held across the venue call without holding a pooled connection (the order's
 * own statements need those), and taking it never blocks the connection, so a user whose lock another
 * process holds never delays another user's. Requests of one moment go as one statement. Within the
 * process, a user's turns wait in line first; a lock held elsewhere is tried again after a few ms.
 * A connection that ends (the database restarted) releases every lock it held, which is what a crashed
 * process needs too; the next turn opens a new one.
 */
export class PostgresUserLocks implements UserLocks {
  private readonly me = Symbol('rules');
  private readonly turns = new Turns();
  private client: Promise<pg.Client> | null = null;
  private closed = false;
  private readonly takes = new Batcher<string, boolean>((keys) => this.tryLocks(keys));
  private readonly gives = new Batcher<string, boolean>((keys) => this.unlocks(keys));

  constructor(private readonly o: PostgresLockOptions) {
    // Opened now, so that the first decision does not wait for it; one that fails is opened again then.
    this.connection().catch(() => undefined);
  }

  async run<T>(userId: string, work: (alone: boolean) => Promise<T>): Promise<T> {
    const { release } = await this.turns.take(userId, this.me);
    try {
      const key = `${this.o.prefix}rules-user:${userId}`;
      await this.acquire(key);
      try {
        // Another process may have decided for this user since: the ledger says what counts.
        return await work(false);
      } finally {
        await this.give(key);
      }
    } finally {
      release();
    }
  }

  private async acquire(key: string): Promise<void> {
    const sleep = this.o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    const deadline = Date.now() + (this.o.waitMs ?? WAIT_MS);
    let wait = FIRST_RETRY_MS;
    for (;;) {
      if (await this.takes.add(key)) return;
      if (Date.now() >= deadline) {
        throw appError(
          'SERVICE_UNAVAILABLE',
          'Another decision of yours is still under way (its order may be on its way to the exchange); nothing was done. Try again in a moment.',
        );
      }
      await sleep(wait);
      wait = Math.min(wait * 2, LAST_RETRY_MS);
    }
  }

  private async give(key: string): Promise<void> {
    try {
      if (!(await this.gives.add(key))) this.o.log.warn({}, 'a rules lock was not held when released');
    } catch (err) {
      // Unsure whether it was released: ending the connection releases it (and every other it held).
      this.o.log.warn({ err }, 'rules lock not released; its connection is closed');
      this.reset();
    }
  }

  private connection(): Promise<pg.Client> {
    if (this.closed) return Promise.reject(new Error('rules locks closed'));
    if (this.client === null) {
      const opening = this.o.connect().then((client) => {
        // Ended, its locks are released: the next turn opens another connection.
        client.on('error', (err) => {
          this.o.log.warn({ err }, 'rules lock connection lost');
          if (this.client === opening) this.client = null;
        });
        client.on('end', () => {
          if (this.client === opening) this.client = null;
        });
        return client;
      });
      opening.catch(() => {
        if (this.client === opening) this.client = null;
      });
      this.client = opening;
    }
    return this.client;
  }

  private reset(): void {
    const client = this.client;
    this.client = null;
    void client?.then((c) => c.end()).catch(() => undefined);
  }

  private async tryLocks(keys: string[]): Promise<boolean[]> {
    const client = await this.connection();
    try {
      const { rows } = await client.query<{ got: boolean }>(
        `select pg_try_advisory_lock(hashtextextended(k, 0)) as got
           from unnest($1::text[]) with ordinality as t(k, n) order by n`,
        [keys],
      );
      return rows.map((r) => r.got);
    } catch (err) {
      // Unsure which were taken: ending the connection releases them all.
      this.reset();
      throw err;
    }
  }

  private async unlocks(keys: string[]): Promise<boolean[]> {
    const client = await this.connection();
    const { rows } = await client.query<{ done: boolean }>(
      `select pg_advisory_unlock(hashtextextended(k, 0)) as done
         from unnest($1::text[]) with ordinality as t(k, n) order by n`,
      [keys],
    );
    return rows.map((r) => r.done);
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = null;
    await client?.then((c) => c.end()).catch(() => undefined);
  }
}

/** The locks for the database the rules run on. */
export function userLocks(
  database: Database,
  prefix: string,
  log: LockLog,
  opts: Pick<PostgresLockOptions, 'waitMs'> = {},
): UserLocks {
  if (database.driver !== 'postgres') return new EmbeddedUserLocks(database.db);
  // The pool's own settings (address, schema): a connection beside the pool, not taken from it.
  const pool = (database.db as unknown as { $client: pg.Pool }).$client;
  return new PostgresUserLocks({
    prefix,
    log,
    ...opts,
    connect: async () => {
      const name = `signal-console rules locks ${prefix}`.slice(0, 63);
      const client = new pg.Client({ ...pool.options, application_name: name });
      await client.connect();
      return client;
    },
  });
}
