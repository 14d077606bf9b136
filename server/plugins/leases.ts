import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import pg from 'pg';

/** Work that exactly one process runs at a time: started when the lease is won, stopped when it is lost. */
export interface Duty {
  start(): void | Promise<void>;
  stop(): void | Promise<void>;
}

/**
 * Singleton jobs (the market feed, each news source's poller, the rule engine) across processes. A
 * process asks to `hold` a lease by name; while it holds it, the duty runs; when the process dies, its
 * leases pass to another candidate within a few seconds.
 */
export interface Leases {
  /** `local` (one process, every lease is its own), `postgres` (advisory locks), or `none` (api nodes). */
  readonly kind: 'local' | 'postgres' | 'none';
  /**
   * Runs `duty` whenever this process holds `name`. Resolves once the first try is over (and the duty
   * started, if it was won) with the function that stops wanting the lease (and stops the duty).
   */
  hold(name: string, duty: Duty): Promise<() => Promise<void>>;
  /** The leases this process holds now, by name. */
  held(): string[];
  close(): Promise<void>;
}

export interface LeaseLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** A duty's start or stop that throws is logged, never allowed to stop the others. */
async function run(step: () => void | Promise<void>, log: LeaseLog, name: string, what: string) {
  try {
    await step();
    return true;
  } catch (err) {
    log.warn({ err, lease: name }, `lease duty failed to ${what}`);
    return false;
  }
}

/** The embedded default: a single process, so every lease is held at once and for good. */
export class LocalLeases implements Leases {
  readonly kind = 'local' as const;
  private readonly duties = new Map<string, Duty>();

  constructor(private readonly log: LeaseLog) {}

  async hold(name: string, duty: Duty): Promise<() => Promise<void>> {
    this.duties.set(name, duty);
    await run(() => duty.start(), this.log, name, 'start');
    return async () => {
      if (this.duties.get(name) !== duty) return;
      this.duties.delete(name);
      await run(() => duty.stop(), this.log, name, 'stop');
    };
  }

  held(): string[] {
    return [...this.duties.keys()];
  }

  async close(): Promise<void> {
    const duties = [...this.duties];
    this.duties.clear();
    await Promise.all(duties.map(([name, duty]) => run(() => duty.stop(), this.log, name, 'stop')));
  }
}

/** An api node: it serves, and leaves every singleton job to the workers. */
export class NoLeases implements Leases {
  readonly kind = 'none' as const;
  async hold(_name: string, _duty: Duty): Promise<() => Promise<void>> {
    return async () => undefined;
  }
  held(): string[] {
    return [];
  }
  async close(): Promise<void> {}
}

interface Wanted {
  duty: Duty;
  key: string;
  held: boolean;
}

export interface PgLeaseOptions {
  url: string;
  /** Namespaces the lock keys, so that deployments sharing a database server do not share leases. */
  prefix: string;
  log: LeaseLog;
  /** How often a free lease is tried for and the connection checked. */
  retryMs?: number;
}

/**
 * Leases as PostgreSQL session advisory locks on one connection of their own. The database releases a
 * lock the moment the connection that took it ends, so a process killed outright frees its leases at
 * once; the others try for free leases every `retryMs`. The holder checks its connection as often: if
 * the check fails it cannot know whether it still holds its locks, so it stops every duty before another
 * process can have won them (the lock is only freed once the database has dropped that connection).
 */
export class PgLeases implements Leases {
  readonly kind = 'postgres' as const;
  private readonly wanted = new Map<string, Wanted>();
  private client: pg.Client | null = null;
  private timer: NodeJS.Timeout;
  private round: Promise<void> | null = null;
  private closed = false;
  private readonly retryMs: number;

  constructor(private readonly o: PgLeaseOptions) {
    this.retryMs = o.retryMs ?? 2000;
    this.timer = setInterval(() => void this.tick(), this.retryMs);
    this.timer.unref();
  }

  /** A 64-bit lock key from the lease's name (advisory locks are keyed by integers). */
  static keyOf(prefix: string, name: string): string {
    const digest = createHash('sha256').update(`${prefix}lease:${name}`).digest();
    return digest.readBigInt64BE(0).toString();
  }

  async hold(name: string, duty: Duty): Promise<() => Promise<void>> {
    const wanted: Wanted = { duty, key: PgLeases.keyOf(this.o.prefix, name), held: false };
    this.wanted.set(name, wanted);
    await this.settle();
    await this.tick();
    return async () => {
      if (this.wanted.get(name) !== wanted) return;
      this.wanted.delete(name);
      await this.settle();
      if (!wanted.held) return;
      wanted.held = false;
      await run(() => duty.stop(), this.o.log, name, 'stop');
      await this.client?.query('SELECT pg_advisory_unlock($1::bigint)', [wanted.key]).catch(() => undefined);
    };
  }

  held(): string[] {
    return [...this.wanted].filter(([, w]) => w.held).map(([name]) => name);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.settle();
    await this.release();
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  /** Waits for a round in progress. */
  private async settle(): Promise<void> {
    while (this.round) await this.round;
  }

  private tick(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.round ??= this.tryAll().finally(() => {
      this.round = null;
    });
    return this.round;
  }

  private async tryAll(): Promise<void> {
    try {
      const client = await this.connection();
      await client.query('SELECT 1');
      for (const [name, wanted] of this.wanted) {
        if (wanted.held || this.closed) continue;
        const { rows } = await client.query<{ won: boolean }>(
          'SELECT pg_try_advisory_lock($1::bigint) AS won',
          [wanted.key],
        );
        if (rows[0]?.won !== true) continue;
        // Won: the duty starts now. If it cannot, the lease goes back so that another process may try.
        wanted.held = true;
        this.o.log.info({ lease: name }, 'lease won');
        if (!(await run(() => wanted.duty.start(), this.o.log, name, 'start'))) {
          wanted.held = false;
          await client.query('SELECT pg_advisory_unlock($1::bigint)', [wanted.key]);
        }
      }
    } catch (err) {
      this.o.log.warn(
        { reason: err instanceof Error ? err.message : String(err) },
        'lease connection lost; stopping the jobs it held',
      );
      await this.drop();
    }
  }

  private async connection(): Promise<pg.Client> {
    if (this.client) return this.client;
    const client = new pg.Client({
      connectionString: this.o.url,
      connectionTimeoutMillis: 5000,
      query_timeout: Math.max(this.retryMs, 2000),
      keepAlive: true,
      application_name: 'signal-console leases',
    });
    // An idle connection that breaks emits here; the next round finds it broken and stops the duties.
    client.on('error', () => undefined);
    await client.connect();
    // Should this process's machine drop off the network, the database notices within ~11 s and frees
    // its locks (by default it would wait for the system's keep-alive, two hours).
    await client.query(
      'SET tcp_keepalives_idle = 5; SET tcp_keepalives_interval = 2; SET tcp_keepalives_count = 3',
    );
    this.client = client;
    return client;
  }

  /** The connection is gone or unsure: every duty stops, and the next round starts from nothing. */
  private async drop(): Promise<void> {
    await this.stopHeld();
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async release(): Promise<void> {
    await this.stopHeld();
    await this.client?.query('SELECT pg_advisory_unlock_all()').catch(() => undefined);
  }

  private async stopHeld(): Promise<void> {
    const held = [...this.wanted].filter(([, w]) => w.held);
    for (const [, wanted] of held) wanted.held = false;
    await Promise.all(held.map(([name, w]) => run(() => w.duty.stop(), this.o.log, name, 'stop')));
    if (held.length > 0) this.o.log.info({ leases: held.map(([n]) => n) }, 'leases given up');
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    leases: Leases;
  }
}

/**
 * Decorates `app.leases`: none on an api node, PostgreSQL advisory locks where several processes share a
 * database and a bus, and the local kind otherwise (one process does everything).
 */
export default fp(
  async function leasesPlugin(app: FastifyInstance) {
    const { ROLE, DATABASE_URL, REDIS_URL, REDIS_PREFIX } = app.config;
    const log = app.log.child({ module: 'leases' });
    const leases: Leases =
      ROLE === 'api'
        ? new NoLeases()
        : DATABASE_URL !== undefined && REDIS_URL !== undefined
          ? new PgLeases({ url: DATABASE_URL, prefix: REDIS_PREFIX, log })
          : new LocalLeases(log);
    app.decorate('leases', leases);
    // Before the modules' own onClose hooks: the duties stop while what they use is still open.
    app.addHook('preClose', async () => leases.close());
  },
  { name: 'leases', dependencies: ['db', 'bus'] },
);
