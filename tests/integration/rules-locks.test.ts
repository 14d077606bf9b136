import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../server/db/client';
import { EmbeddedUserLocks, userLocks, type UserLocks } from '../../server/db/user-locks';
import { dbTargets, useDatabase } from '../helpers/db';

const log = { warn: () => undefined };

/** A promise and the function that settles it. */
function gate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/** Each user's lock around a rule decision, held by two servers of one database. */
describe.each(dbTargets())('rule decision locks on %s', (name) => {
  const target = useDatabase(name);
  let database: Database;
  let one: UserLocks;
  let two: UserLocks;

  beforeAll(async () => {
    database = await target.open();
    one = userLocks(database, 'test:', log);
    two = userLocks(database, 'test:', log);
  });
  afterAll(async () => {
    await one.close();
    await two.close();
    await database.close();
    await target.cleanup();
  });

  it("holds a user's turn against the other server, and never another user's", async () => {
    const [ann, bob] = [randomUUID(), randomUUID()];
    const held = gate();
    const order: string[] = [];
    const first = one.run(ann, async () => {
      order.push('one ann');
      await held.opened;
      order.push('one ann done');
    });
    await new Promise((r) => setTimeout(r, 20));
    const waiting = two.run(ann, async () => void order.push('two ann'));
    // Another user's turn goes at once, while Ann's is held.
    await two.run(bob, async () => void order.push('two bob'));
    await new Promise((r) => setTimeout(r, 50));
    expect(order).toEqual(['one ann', 'two bob']);
    held.open();
    await Promise.all([first, waiting]);
    expect(order).toEqual(['one ann', 'two bob', 'one ann done', 'two ann']);
  });

  it('runs thirty turns of one user from both servers one at a time', async () => {
    const ann = randomUUID();
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        (i % 2 === 0 ? one : two).run(ann, async () => {
          inside += 1;
          most = Math.max(most, inside);
          await new Promise((r) => setTimeout(r, 2));
          inside -= 1;
        }),
      ),
    );
    expect(most).toBe(1);
  });

  it('says whether the other server had the turn since: only then is the ledger read', async () => {
    const ann = randomUUID();
    const seen: boolean[] = [];
    const note = (alone: boolean) => new Promise<void>((r) => setTimeout(() => r(void seen.push(alone)), 5));
    // Queued at once, in this order: each waits for the one before.
    await Promise.all([one.run(ann, note), one.run(ann, note), two.run(ann, note), one.run(ann, note)]);
    // On PGlite both servers are in this process and know who had the turn last; on PostgreSQL the
    // other may be any process, so the ledger is always read.
    expect(seen).toEqual(
      target.name === 'pglite' ? [false, true, false, false] : [false, false, false, false],
    );
  });

  // Another process can hold a lock only on PostgreSQL: on PGlite every turn waits in one line.
  if (target.name === 'postgres')
    it('gives up on a turn another process holds too long, doing nothing, and takes it once free', async () => {
      const ann = randomUUID();
      const impatient = userLocks(database, 'test:', log, { waitMs: 60 });
      const held = gate();
      const holding = one.run(ann, () => held.opened);
      await new Promise((r) => setTimeout(r, 20));
      let ran = false;
      await expect(impatient.run(ann, async () => void (ran = true))).rejects.toMatchObject({
        status: 503,
        detail: expect.stringMatching(/^Another decision of yours is still under way/),
      });
      expect(ran).toBe(false);
      held.open();
      await holding;
      await impatient.run(ann, async () => void (ran = true));
      expect(ran).toBe(true);
      await impatient.close();
    });

  if (target.name === 'postgres')
    it('takes turns again on a new connection when the one holding the locks is cut', async () => {
      const prefix = `cut-${randomUUID().slice(0, 8)}:`;
      const locks = userLocks(database, prefix, log);
      const ann = randomUUID();
      await locks.run(ann, async () => undefined);
      const cut = await database.db.execute(
        sql`select pg_terminate_backend(pid) as done from pg_stat_activity
            where application_name = ${`signal-console rules locks ${prefix}`}`,
      );
      expect((cut as unknown as { rows: { done: boolean }[] }).rows).toEqual([{ done: true }]);
      // The turn under way when the connection went may fail; the next ones go through.
      await locks.run(ann, async () => undefined).catch(() => undefined);
      let ran = 0;
      await locks.run(ann, async () => void (ran += 1));
      await one.run(ann, async () => void (ran += 1));
      expect(ran).toBe(2);
      await locks.close();
    });
});

describe('rule decision locks of a server alone on its database', () => {
  it('are always alone: the engine keeps its book of fired totals', async () => {
    const locks = new EmbeddedUserLocks({});
    const seen: boolean[] = [];
    const ann = randomUUID();
    await Promise.all([ann, ann, randomUUID()].map((u) => locks.run(u, async (a) => void seen.push(a))));
    expect(seen).toEqual([true, true, true]);
    await locks.close();
  });
});
