import type { FastifyInstance, FastifyRequest } from 'fastify';
import { appError, ERRORS } from './errors';

export interface LimitSpec {
  /** Requests allowed per window and client address. */
  perIp: number;
  /** Requests allowed per window and account, from any address. */
  perAccount?: number;
  windowMs: number;
  /**
   * The account a request is about (lower-cased username, email, user id…), or null. May look it up, so
   * that the names of one account (its username and its e-mail) share one count.
   */
  accountOf?(request: FastifyRequest): string | null | Promise<string | null>;
}

/** Spec-free but conventional: 10 a minute from one address, and 10 a minute against one account. */
export const AUTH_LIMIT = { perIp: 10, perAccount: 10, windowMs: 60_000 } as const;

/** "Too many requests. Please try again in N s." */
export function retryText(seconds: number): string {
  return `${ERRORS.RATE_LIMITED.detail.replace(' later.', '')} in ${seconds} s.`;
}

interface Count {
  exceeded: boolean;
  /** Seconds until the window ends. */
  seconds: number;
}

/** Bound on the keys a fallback window keeps, like @fastify/rate-limit's own in-process store. */
const FALLBACK_KEYS = 5000;

/**
 * A fixed window counted in this process: what @fastify/rate-limit's in-process store does, for the
 * while Redis does not answer, so a limit never stops counting.
 */
export class LocalWindow {
  private readonly hits = new Map<string, { count: number; start: number }>();

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  hit(key: string): Count {
    const now = this.now();
    let entry = this.hits.get(key);
    if (entry === undefined || entry.start + this.windowMs <= now) entry = { count: 0, start: now };
    entry.count += 1;
    this.hits.delete(key);
    this.hits.set(key, entry);
    if (this.hits.size > FALLBACK_KEYS) {
      const oldest = this.hits.keys().next().value;
      if (oldest !== undefined) this.hits.delete(oldest);
    }
    const ms = entry.start + this.windowMs - now;
    return { exceeded: entry.count > this.max, seconds: Math.ceil(ms / 1000) };
  }
}

/**
 * One window of a limit: @fastify/rate-limit's store (Redis shared by every process when REDIS_URL is
 * set, else this process), and, with Redis, a {@link LocalWindow} that counts while Redis is away.
 */
function window(app: FastifyInstance, max: number, windowMs: number, keyOf: (r: FastifyRequest) => string) {
  const check = app.createRateLimit({ max, timeWindow: windowMs, keyGenerator: keyOf });
  const shared = app.sharedLimits;
  const fallback = shared === null ? null : new LocalWindow(max, windowMs);
  return async (request: FastifyRequest): Promise<Count> => {
    try {
      const result = await check(request);
      if (result.isAllowed) return { exceeded: false, seconds: 0 };
      return { exceeded: result.isExceeded, seconds: result.ttlInSeconds };
    } catch (err) {
      if (shared === null || fallback === null) throw err;
      shared.unreachable(err);
      return fallback.hit(keyOf(request));
    }
  };
}

/**
 * A route's `preValidation` guard (so it counts before the schema answers) limiting a route per client
 * address and, when the spec names accounts, per account.
 * Each route gets its own counters, shared by every server process through Redis when REDIS_URL is set;
 * going over answers 429 with a detail and Retry-After saying when.
 */
export function limiter(app: FastifyInstance, name: string, spec: LimitSpec) {
  const checks = [window(app, spec.perIp, spec.windowMs, (request) => `${name}:ip:${request.ip}`)];
  const { accountOf, perAccount } = spec;
  // Resolved once per request before the checks run (the rate limit's key function is synchronous).
  const accounts = new WeakMap<FastifyRequest, string>();
  if (accountOf !== undefined && perAccount !== undefined) {
    checks.push(
      window(
        app,
        perAccount,
        spec.windowMs,
        (request) => `${name}:account:${accounts.get(request) ?? `ip:${request.ip}`}`,
      ),
    );
  }
  return async (request: FastifyRequest): Promise<void> => {
    if (accountOf !== undefined) {
      const account = await accountOf(request);
      if (account !== null) accounts.set(request, account);
    }
    for (const check of checks) {
      const result = await check(request);
      if (result.exceeded) {
        const seconds = Math.max(1, result.seconds);
        throw appError('RATE_LIMITED', retryText(seconds), { 'retry-after': String(seconds) });
      }
    }
  };
}

/** A string field of a parsed body, lower-cased, for per-account keys. */
export function bodyField(request: FastifyRequest, field: string): string | null {
  const body = request.body;
  if (typeof body !== 'object' || body === null || !(field in body)) return null;
  const value = (body as Record<string, unknown>)[field];
  return typeof value === 'string' && value.trim() !== '' ? value.trim().toLowerCase() : null;
}
