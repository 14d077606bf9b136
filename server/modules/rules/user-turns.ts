import type { UserLocks } from '../../db/user-locks';
import type { DecisionRow } from './rules.types';

/**
 * The users' turns: each user's decisions run one after another (their budget and cooldown read in
 * order), holding that user's lock shared by every process; users run side by side. A decision claimed
 * before its turn came is held here as unchecked, so that the user's earlier decisions count it apart.
 */
export class UserTurns {
  private readonly chains = new Map<string, Promise<void>>();
  /** Per user, decisions claimed whose turn in the user's chain has not come yet. */
  private readonly claimedAhead = new Map<string, Set<number>>();

  constructor(private readonly locks: UserLocks) {}

  /** Whether a turn is under way or waiting. */
  get busy(): boolean {
    return this.chains.size > 0;
  }

  /**
   * Runs a task in the user's turn: after their earlier ones, holding their lock, so that a check and its
   * order never overlap another decision of the same user, here or in another process. `alone`: nobody
   * else held the lock since this engine did, so its book of fired totals saw every decision since.
   * Answers the task's own result.
   */
  run<T>(userId: string, task: (alone: boolean) => Promise<T>): Promise<T> {
    const previous = this.chains.get(userId) ?? Promise.resolve();
    const run = previous.then(() => this.locks.run(userId, task));
    const next = run.then(
      () => undefined,
      () => undefined,
    );
    this.chains.set(userId, next);
    void next.then(() => {
      if (this.chains.get(userId) === next) this.chains.delete(userId);
    });
    return run;
  }

  /** A decision claimed whose turn has not come yet. */
  ahead(decision: DecisionRow): void {
    let ids = this.claimedAhead.get(decision.userId);
    if (ids === undefined) {
      ids = new Set();
      this.claimedAhead.set(decision.userId, ids);
    }
    ids.add(decision.id);
  }

  /** A decision whose turn came: no longer waiting for it. */
  checked(decision: DecisionRow): void {
    const ids = this.claimedAhead.get(decision.userId);
    ids?.delete(decision.id);
    if (ids?.size === 0) this.claimedAhead.delete(decision.userId);
  }

  /** The user's decisions claimed and not yet checked. */
  unchecked(userId: string): number[] {
    return [...(this.claimedAhead.get(userId) ?? [])];
  }
}
