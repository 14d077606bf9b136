import type { PlanName } from '../billing/plans';

/** How long a plan read from billing is used without reading it again. */
export const PLAN_KEEP_MS = 30_000;
/** An account no rule decision has asked about for this long is dropped rather than read again. */
const PLAN_UNUSED_MS = 10 * 60_000;
const MAX_HELD = 50_000;

export interface PlanLog {
  warn(obj: object, msg: string): void;
}

/**
 * The plans of the accounts whose rules match premium sources' items, held in memory so that a decision
 * does not wait for billing: each is read at most every 30 s, and the engine's sweep reads those in use
 * again before they are that old, off the order path. An upgrade reaches the rules within that time,
 * and so does the end of Premium. A plan that cannot be read counts as free: a premium item is then not
 * traded rather than traded for an account that may not receive it.
 */
export class PlanBook {
  private readonly held = new Map<string, { plan: PlanName; at: number; used: number }>();

  constructor(
    private readonly read: (userId: string) => Promise<PlanName>,
    private readonly now: () => number,
    private readonly log: PlanLog,
  ) {}

  /** Which of the accounts are Premium now (as of at most 30 s ago). */
  async premium(userIds: Iterable<string>): Promise<Set<string>> {
    const now = this.now();
    const paying = new Set<string>();
    const due: string[] = [];
    for (const userId of new Set(userIds)) {
      const hit = this.held.get(userId);
      if (hit !== undefined && now - hit.at < PLAN_KEEP_MS) {
        hit.used = now;
        if (hit.plan === 'premium') paying.add(userId);
      } else {
        due.push(userId);
      }
    }
    const plans = await Promise.all(due.map((userId) => this.fetch(userId, now)));
    due.forEach((userId, i) => {
      if (plans[i] === 'premium') paying.add(userId);
    });
    return paying;
  }

  /**
   * Reads ahead the plans of `userIds` not held yet (the active rules' owners, when the rules are loaded)
   * and those held past half their age that a decision asked about in the last ten minutes.
   */
  async keepFresh(userIds: Iterable<string> = []): Promise<void> {
    const now = this.now();
    const due = new Set<string>();
    for (const userId of userIds) if (!this.held.has(userId)) due.add(userId);
    for (const [userId, hit] of this.held) {
      if (now - hit.used > PLAN_UNUSED_MS) this.held.delete(userId);
      else if (now - hit.at >= PLAN_KEEP_MS / 2) due.add(userId);
    }
    await Promise.all([...due].map((userId) => this.fetch(userId, this.held.get(userId)?.used ?? now)));
  }

  private async fetch(userId: string, used: number): Promise<PlanName> {
    const at = this.now();
    let plan: PlanName;
    try {
      plan = await this.read(userId);
    } catch (err) {
      this.log.warn({ err, userId }, 'plan not read; premium items are not traded for the account');
      return 'free';
    }
    if (this.held.size >= MAX_HELD) this.held.clear();
    this.held.set(userId, { plan, at, used });
    return plan;
  }
}
