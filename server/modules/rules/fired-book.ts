import { startOfUtcDay } from './risk.service';
import type { CountedDecision, DecisionChange, FiredStats } from './rules.types';

/** How far back a user's decisions are read: the cooldown looks back at most a day, the budget to midnight. */
export const BOOK_REACH_MS = 2 * 86_400_000;

/**
 * Fired decisions older than this are read summed (one row per user, asset and side of midnight): final,
 * and too old for a change of them to be still on its way. Younger ones are read one by one, so that
 * hearing of one again (a bus message that crossed the read) counts it once.
 */
export const BOOK_RECENT_MS = 5 * 60_000;

/** How long a user's read is trusted: then the ledger is read again, whatever the book heard since. */
export const BOOK_REREAD_MS = 10 * 60_000;

type Held = Map<number, { asset: string; at: number; cents: number }>;

/**
 * The fired totals of the users whose rules the engine decides, kept in memory: each user's counted
 * decisions of the last two days, read from the ledger once (when the engine starts or their rule is
 * saved, else the first time a signal matches one of their rules), then kept current by every change
 * of a decision this process makes or hears of on the bus (a confirmation answered in another
 * process); a change heard while a user's read is under way is applied after it. The ledger stays the
 * check: each user is read again at most ten minutes after their last read (a change the bus lost is
 * not kept for longer), and the risk envelope reads the ledger itself for a user the book does not hold.
 *
 * Budget figures are kept in cents, summed as integers: a float sum of thirty notionals could put the
 * day's total a hair over a budget it meets exactly.
 */
export class FiredBook {
  private readonly users = new Map<string, { decisions: Held; readAt: number }>();
  /** Reads under way, and the changes heard meanwhile (applied once the read is in). */
  private readonly loading = new Map<string, { done: Promise<void>; heard: DecisionChange[] }>();

  constructor(
    private readonly read: (
      userIds: string[],
      from: Date,
      midnight: Date,
      recent: Date,
    ) => Promise<CountedDecision[]>,
    private readonly now: () => number,
  ) {}

  /**
   * Reads the users the book does not hold yet, and those whose read is older than ten minutes, in one
   * statement; resolves once all of them are held. A user read again is not waited for: their figures
   * are used (and kept current) until the new read replaces them.
   */
  hold(userIds: Iterable<string>): Promise<void> {
    const missing: string[] = [];
    const waits: Promise<void>[] = [];
    const now = this.now();
    let unheld = false;
    for (const userId of new Set(userIds)) {
      const held = this.users.get(userId);
      if (held !== undefined && now - held.readAt < BOOK_REREAD_MS) continue;
      const under = this.loading.get(userId);
      if (under === undefined) {
        missing.push(userId);
        if (held === undefined) unheld = true;
      } else if (held === undefined) {
        waits.push(under.done);
      }
    }
    if (missing.length > 0) {
      const done = this.read(
        missing,
        new Date(now - BOOK_REACH_MS),
        startOfUtcDay(now),
        new Date(now - BOOK_RECENT_MS),
      ).then(
        (rows) => {
          const fresh = new Map<string, Held>(missing.map((u) => [u, new Map()]));
          // A sum of fired decisions is final: it is kept under an id no decision has (below zero).
          let sums = 0;
          for (const r of rows) {
            fresh.get(r.userId)?.set(r.id ?? --sums, { asset: r.asset, at: r.at, cents: toCents(r.cost) });
          }
          for (const userId of missing) {
            const heard = this.loading.get(userId)?.heard ?? [];
            this.loading.delete(userId);
            this.users.set(userId, { decisions: fresh.get(userId) ?? new Map(), readAt: now });
            for (const change of heard) this.apply(change);
          }
        },
        (err: unknown) => {
          for (const userId of missing) this.loading.delete(userId);
          throw err;
        },
      );
      for (const userId of missing) this.loading.set(userId, { done, heard: [] });
      if (unheld) waits.push(done);
      // A read again that fails leaves the figures as they were; the next hold tries again.
      else done.catch(() => undefined);
    }
    return Promise.all(waits).then(() => undefined);
  }

  /**
   * The user's totals from `since` (midnight UTC), leaving out `except` (the decision being checked and
   * those claimed but not checked yet); undefined when the book does not hold the user.
   */
  totals(
    userId: string,
    asset: string,
    since: number,
    except: readonly number[] = [],
  ): FiredStats | undefined {
    const held = this.users.get(userId)?.decisions;
    if (held === undefined) return undefined;
    const left = new Set(except);
    const reach = this.now() - BOOK_REACH_MS;
    let cents = 0;
    let last = -Infinity;
    for (const [id, d] of held) {
      if (d.at < reach) {
        held.delete(id);
        continue;
      }
      if (left.has(id)) continue;
      if (d.at >= since) cents += d.cents;
      if (d.asset === asset && d.at > last) last = d.at;
    }
    return { spent: cents / 100, lastOnAsset: last === -Infinity ? null : new Date(last) };
  }

  /**
   * A decision changed (here or in another process): counted at its cost while fired or pending, else
   * not. An exit closing what a decision opened changes neither, and is not passed here.
   */
  apply(change: DecisionChange): void {
    this.loading.get(change.userId)?.heard.push(change);
    const held = this.users.get(change.userId)?.decisions;
    if (held === undefined) return;
    if (change.outcome === 'fired' || change.outcome === 'pending') {
      const cost = change.outcome === 'fired' && change.notional !== null ? change.notional : change.amount;
      held.set(change.id, { asset: change.asset, at: change.at, cents: toCents(cost) });
    } else {
      held.delete(change.id);
    }
  }

  /** Whether the book holds the user's decisions, or is reading them (their changes matter to it). */
  follows(userId: string): boolean {
    return this.users.has(userId) || this.loading.has(userId);
  }
}

const toCents = (usd: number) => Math.round(usd * 100);
