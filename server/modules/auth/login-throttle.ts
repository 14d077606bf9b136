import type { Redis } from 'ioredis';

/** Failed logins one account may have before each further one makes it wait. */
export const FREE_FAILURES = 5;
/** A run of failures is forgotten this long after its last failure. */
export const FAILURE_MEMORY_MS = 15 * 60_000;
/** The longest wait. */
export const MAX_WAIT_MS = 15 * 60_000;
const MAX_ACCOUNTS = 10_000;

/**
 * Failed password logins counted per account, whichever name was typed (username or e-mail map to one
 * key): after {@link FREE_FAILURES}, each failure doubles the wait before the next try (2 s, 4 s, 8 s …
 * up to 15 min). A success clears the run; a run is forgotten {@link FAILURE_MEMORY_MS} after its last
 * failure once its wait is over.
 */
export interface LoginThrottle {
  /** Milliseconds the account must still wait; 0 when it may try. */
  waitMs(account: string): Promise<number>;
  /**
   * One try, judged before the password is checked: while the account must wait, answers the wait and
   * counts nothing; otherwise counts the try as a failure at once (a success clears it) and answers 0.
   * Read and count are one step, so that a burst of parallel guesses is judged one by one, not all
   * against the count before any of them was checked.
   */
  attempt(account: string): Promise<number>;
  failed(account: string): Promise<void>;
  succeeded(account: string): Promise<void>;
}

interface Run {
  failures: number;
  last: number;
  until: number;
}

/** The wait that ends a run of `failures`, the last at `now`; 0 while the failures are free. */
function waitUntil(failures: number, now: number): number {
  const over = failures - FREE_FAILURES;
  return over > 0 ? now + Math.min(MAX_WAIT_MS, 1000 * 2 ** Math.min(over, 20)) : 0;
}

function forgotten(run: Run, now: number): boolean {
  return now - run.last > FAILURE_MEMORY_MS && now >= run.until;
}

/** The throttle kept in this process (bounded to 10,000 accounts): one server process, no Redis. */
export class MemoryLoginThrottle implements LoginThrottle {
  private readonly runs = new Map<string, Run>();

  constructor(private readonly now: () => number = Date.now) {}

  async waitMs(account: string): Promise<number> {
    const run = this.current(account);
    return run === undefined ? 0 : Math.max(0, run.until - this.now());
  }

  async attempt(account: string): Promise<number> {
    const run = this.current(account);
    const wait = run === undefined ? 0 : run.until - this.now();
    if (wait > 0) return wait;
    this.count(account);
    return 0;
  }

  async failed(account: string): Promise<void> {
    this.count(account);
  }

  /** Synchronous, so that a read before it and this write are one step in this process. */
  private count(account: string): void {
    const now = this.now();
    const run = this.current(account) ?? { failures: 0, last: now, until: 0 };
    run.failures += 1;
    run.last = now;
    const until = waitUntil(run.failures, now);
    if (until > 0) run.until = until;
    this.runs.delete(account);
    this.runs.set(account, run);
    if (this.runs.size > MAX_ACCOUNTS) {
      const oldest = this.runs.keys().next().value;
      if (oldest !== undefined) this.runs.delete(oldest);
    }
  }

  async succeeded(account: string): Promise<void> {
    this.runs.delete(account);
  }

  private current(account: string): Run | undefined {
    const run = this.runs.get(account);
    if (run !== undefined && forgotten(run, this.now())) {
      this.runs.delete(account);
      return undefined;
    }
    return run;
  }
}

/**
 * The scripts' shared parts. KEYS[1] the run (a hash); ARGV now, memory, free failures, longest wait.
 * READ_RUN loads it, forgotten once it is older than the memory and its wait is over; COUNT_FAILURE
 * counts one failure by the rule of {@link MemoryLoginThrottle.failed} and stores the run for as long
 * as it is remembered.
 */
const READ_RUN = `
local now = tonumber(ARGV[1])
local memory = tonumber(ARGV[2])
local free = tonumber(ARGV[3])
local maxWait = tonumber(ARGV[4])
local run = redis.call('HMGET', KEYS[1], 'failures', 'last', 'until')
local failures = tonumber(run[1]) or 0
local last = tonumber(run[2]) or now
local untilAt = tonumber(run[3]) or 0
if now - last > memory and now >= untilAt then
  failures = 0
  untilAt = 0
end
`;
const COUNT_FAILURE = `
failures = failures + 1
local over = failures - free
if over > 0 then
  untilAt = now + math.min(maxWait, 1000 * 2 ^ math.min(over, 20))
end
redis.call('HSET', KEYS[1], 'failures', failures, 'last', now, 'until', untilAt)
redis.call('PEXPIRE', KEYS[1], math.max(memory, untilAt - now))
`;

/**
 * One try (see {@link LoginThrottle.attempt}), atomically: while the run's wait lasts answers the ms left
 * and counts nothing; otherwise counts a failure as {@link FAILED_LUA} does and answers 0.
 */
const ATTEMPT_LUA = `${READ_RUN}
if untilAt > now then
  return untilAt - now
end
${COUNT_FAILURE}
return 0
`;

/**
 * Counts one failure, atomically, so that failures arriving at two processes at once both count; answers
 * the run's failures.
 */
const FAILED_LUA = `${READ_RUN}${COUNT_FAILURE}
return failures
`;

export interface RedisLoginThrottleOptions {
  redis: Redis;
  /** Put before each account's key. */
  prefix: string;
  /** Told when Redis did not answer; the failure is then counted in this process. */
  unreachable?: (err: unknown) => void;
  now?: () => number;
}

/**
 * The throttle shared by every server process through Redis, so that spreading guesses over several
 * processes gains nothing. While Redis does not answer, failures are counted in this process instead
 * (and still count once Redis is back): a login never becomes unthrottled.
 */
export class RedisLoginThrottle implements LoginThrottle {
  private readonly local: MemoryLoginThrottle;
  private readonly now: () => number;

  constructor(private readonly opts: RedisLoginThrottleOptions) {
    this.now = opts.now ?? Date.now;
    this.local = new MemoryLoginThrottle(this.now);
  }

  async waitMs(account: string): Promise<number> {
    const local = await this.local.waitMs(account);
    const shared = await this.opts.redis
      .hmget(this.key(account), 'failures', 'last', 'until')
      .then(([failures, last, until]) => {
        if (failures == null || last == null || until == null) return 0;
        const run = { failures: Number(failures), last: Number(last), until: Number(until) };
        return forgotten(run, this.now()) ? 0 : Math.max(0, run.until - this.now());
      })
      .catch((err: unknown) => this.lost(err, 0));
    return Math.max(local, shared);
  }

  async attempt(account: string): Promise<number> {
    const local = await this.local.waitMs(account);
    if (local > 0) return local;
    const shared = await this.opts.redis
      .eval(ATTEMPT_LUA, 1, this.key(account), this.now(), FAILURE_MEMORY_MS, FREE_FAILURES, MAX_WAIT_MS)
      .then((wait) => Number(wait))
      .catch((err: unknown) => this.lost(err, null));
    return shared ?? this.local.attempt(account);
  }

  async failed(account: string): Promise<void> {
    const counted = await this.opts.redis
      .eval(FAILED_LUA, 1, this.key(account), this.now(), FAILURE_MEMORY_MS, FREE_FAILURES, MAX_WAIT_MS)
      .then(() => true)
      .catch((err: unknown) => this.lost(err, false));
    if (!counted) await this.local.failed(account);
  }

  async succeeded(account: string): Promise<void> {
    await this.local.succeeded(account);
    await this.opts.redis.del(this.key(account)).catch((err: unknown) => this.lost(err, 0));
  }

  private key(account: string): string {
    return `${this.opts.prefix}login:${account}`;
  }

  private lost<T>(err: unknown, value: T): T {
    this.opts.unreachable?.(err);
    return value;
  }
}
