import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LocalLeases, NoLeases, PgLeases, type Duty, type Leases } from '../../server/plugins/leases';

const quiet = { info: () => undefined, warn: () => undefined };

/** A duty that records whether it runs. */
function duty(): Duty & { running: boolean; starts: number } {
  const d = {
    running: false,
    starts: 0,
    start() {
      d.running = true;
      d.starts += 1;
    },
    stop() {
      d.running = false;
    },
  };
  return d;
}

describe('local and api-node leases', () => {
  it('one process holds every lease at once; an api node holds none', async () => {
    const local = new LocalLeases(quiet);
    const feed = duty();
    const release = await local.hold('market-feed', feed);
    expect(feed.running).toBe(true);
    expect(local.held()).toEqual(['market-feed']);
    await release();
    expect(feed.running).toBe(false);
    expect(local.held()).toEqual([]);

    const none = new NoLeases();
    const other = duty();
    await none.hold('market-feed', other);
    expect(other.starts).toBe(0);
    expect(none.held()).toEqual([]);
  });
});

const url = process.env.TEST_DATABASE_URL;

describe.each(url === undefined ? [] : ['PostgreSQL'])('%s advisory-lock leases', () => {
  const made: Leases[] = [];
  const leases = (prefix: string) => {
    const l = new PgLeases({ url: url ?? '', prefix, log: quiet, retryMs: 200 });
    made.push(l);
    return l;
  };
  afterEach(async () => {
    await Promise.all(made.splice(0).map((l) => l.close()));
  });

  it('gives a lease to one process, and to another within a few tries once the first lets go', async () => {
    const prefix = `t${randomBytes(4).toString('hex')}:`;
    const a = leases(prefix);
    const b = leases(prefix);
    const onA = duty();
    const onB = duty();
    await a.hold('feed', onA);
    await b.hold('feed', onB);
    expect([onA.running, onB.running]).toEqual([true, false]);
    expect(a.held()).toEqual(['feed']);
    expect(b.held()).toEqual([]);

    await a.close();
    expect(onA.running).toBe(false);
    await vi.waitFor(() => expect(onB.running).toBe(true), { timeout: 3000, interval: 50 });
    expect(b.held()).toEqual(['feed']);
  });

  it('keeps leases of different names and prefixes apart', async () => {
    const prefix = `t${randomBytes(4).toString('hex')}:`;
    const a = leases(prefix);
    const b = leases(prefix);
    const c = leases(`${prefix}other:`);
    const feedA = duty();
    const rulesB = duty();
    const feedC = duty();
    await a.hold('feed', feedA);
    await b.hold('rules', rulesB);
    await c.hold('feed', feedC);
    expect([feedA.running, rulesB.running, feedC.running]).toEqual([true, true, true]);
  });

  it('stops the duty when its connection is cut, and the other process takes over', async () => {
    const prefix = `t${randomBytes(4).toString('hex')}:`;
    const a = leases(prefix);
    const b = leases(prefix);
    const onA = duty();
    const onB = duty();
    await a.hold('feed', onA);
    await b.hold('feed', onB);
    expect(onA.running).toBe(true);

    // The database ends the holder's connection (as when its machine drops off the network).
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ pid: number }>(
        `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = ($1::bigint & 4294967295)::oid AND granted`,
        [PgLeases.keyOf(prefix, 'feed')],
      );
      expect(rows).toHaveLength(1);
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0]?.pid]);
    } finally {
      await admin.end();
    }
    await vi.waitFor(() => expect(onA.running).toBe(false), { timeout: 3000, interval: 50 });
    await vi.waitFor(() => expect(onB.running).toBe(true), { timeout: 3000, interval: 50 });
    // Never both at once in this process's view of the two.
    expect(onA.running && onB.running).toBe(false);
  });

  it('gives a lease back when its duty cannot start, so that another process can try', async () => {
    const prefix = `t${randomBytes(4).toString('hex')}:`;
    const a = leases(prefix);
    const failing: Duty = {
      start() {
        throw new Error('cannot start');
      },
      stop() {},
    };
    await a.hold('feed', failing);
    expect(a.held()).toEqual([]);
    const b = leases(prefix);
    const onB = duty();
    await b.hold('feed', onB);
    await vi.waitFor(() => expect(onB.running).toBe(true), { timeout: 3000, interval: 50 });
  });
});
