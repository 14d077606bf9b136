/** Failed logins one account may have before each further one makes it wait. */
export const FREE_FAILURES = 5;
/** A run of failures is forgotten this long after its last failure. */
export const FAILURE_MEMORY_MS = 15 * 60_000;
/** The longest wait. */
export const MAX_WAIT_MS = 15 * 60_000;
const MAX_ACCOUNTS = 10_000;

interface Run {
  failures: number;
  last: number;
  until: number;
}

/**
 * Failed password logins counted per account, whichever name was typed (username or e-mail map to one
 * key): after {@link FREE_FAILURES}, each failure doubles the wait before the next try (2 s, 4 s, 8 s …
 * up to 15 min). A success clears the run. Kept in this process (bounded to 10,000 accounts).
 */
export class LoginThrottle {
  private readonly runs = new Map<string, Run>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Milliseconds the account must still wait; 0 when it may try. */
  waitMs(account: string): number {
    const run = this.current(account);
    return run === undefined ? 0 : Math.max(0, run.until - this.now());
  }

  failed(account: string): void {
    const now = this.now();
    const run = this.current(account) ?? { failures: 0, last: now, until: 0 };
    run.failures += 1;
    run.last = now;
    const over = run.failures - FREE_FAILURES;
    if (over > 0) run.until = now + Math.min(MAX_WAIT_MS, 1000 * 2 ** Math.min(over, 20));
    this.runs.delete(account);
    this.runs.set(account, run);
    if (this.runs.size > MAX_ACCOUNTS) {
      const oldest = this.runs.keys().next().value;
      if (oldest !== undefined) this.runs.delete(oldest);
    }
  }

  succeeded(account: string): void {
    this.runs.delete(account);
  }

  private current(account: string): Run | undefined {
    const run = this.runs.get(account);
    if (run !== undefined && this.now() - run.last > FAILURE_MEMORY_MS && this.now() >= run.until) {
      this.runs.delete(account);
      return undefined;
    }
    return run;
  }
}
