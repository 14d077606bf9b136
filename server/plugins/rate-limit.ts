import type { FastifyInstance, FastifyRequest } from 'fastify';
import { appError, ERRORS } from './errors';

export interface LimitSpec {
  /** Requests allowed per window and client address. */
  perIp: number;
  /** Requests allowed per window and account, from any address. */
  perAccount: number;
  windowMs: number;
  /** The account a request is about (lower-cased username, email, user id…), or null. */
  accountOf(request: FastifyRequest): string | null;
}

/** Spec-free but conventional: 10 a minute from one address, and 10 a minute against one account. */
export const AUTH_LIMIT = { perIp: 10, perAccount: 10, windowMs: 60_000 } as const;

/** "Too many requests. Please try again in N s." */
export function retryText(seconds: number): string {
  return `${ERRORS.RATE_LIMITED.detail.replace(' later.', '')} in ${seconds} s.`;
}

/**
 * A preHandler limiting a route per client address and per account (@fastify/rate-limit's stores).
 * Each route gets its own counters; going over answers 429 with a detail and Retry-After saying when.
 */
export function limiter(app: FastifyInstance, name: string, spec: LimitSpec) {
  const byIp = app.createRateLimit({
    max: spec.perIp,
    timeWindow: spec.windowMs,
    keyGenerator: (request) => `${name}:ip:${request.ip}`,
  });
  const byAccount = app.createRateLimit({
    max: spec.perAccount,
    timeWindow: spec.windowMs,
    keyGenerator: (request) => `${name}:account:${spec.accountOf(request) ?? `ip:${request.ip}`}`,
  });
  return async (request: FastifyRequest): Promise<void> => {
    for (const check of [byIp, byAccount]) {
      const result = await check(request);
      if (!result.isAllowed && result.isExceeded) {
        const seconds = Math.max(1, result.ttlInSeconds);
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
