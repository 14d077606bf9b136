import { randomUUID } from 'node:crypto';
import { TransactionRollbackError } from 'drizzle-orm';
import type { Db } from '../db/client';
import { users } from '../db/schema';

export interface RehearsalLog {
  warn(obj: object, msg: string): void;
}

/** A module's rehearsal of its statements: runs them on `db` and rolls them back; answers the ms it took. */
export type StatementRehearsal = (db: Db, log: RehearsalLog) => Promise<number>;

/**
 * Runs `statements` in a transaction that is always rolled back, and answers how long it took (ms).
 *
 * A module runs the statements of its hot path here once at start, through its own repos on the
 * transaction: the database opens the tables and indexes, plans the statements and caches the plans of
 * their foreign-key checks, and its engine compiles the code they run, so that the first headline after
 * a start does not pay for all of that in front of its orders. Nothing is kept: the rows go with the
 * rollback (a sequence may skip the numbers they took). A rehearsal that fails is logged and costs only
 * the warm-up it would have given.
 */
export async function rehearseInRollback(
  db: Db,
  statements: (tx: Db) => Promise<void>,
  log: RehearsalLog,
): Promise<number> {
  const started = performance.now();
  try {
    await db.transaction(async (tx) => {
      await statements(tx as unknown as Db);
      tx.rollback();
    });
  } catch (err) {
    if (!(err instanceof TransactionRollbackError)) log.warn({ err }, 'statements not rehearsed');
  }
  return performance.now() - started;
}

/** A user that exists only inside a rehearsal's transaction, for the rows that must belong to one. */
export async function scratchUser(tx: Db): Promise<string> {
  const name = `rehearsal-${randomUUID()}`;
  const [user] = await tx
    .insert(users)
    .values({ email: `${name}@rehearsal.invalid`, username: name })
    .returning({ id: users.id });
  if (user === undefined) throw new Error('scratch user not created');
  return user.id;
}
