import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bearerToken } from '../../plugins/auth-guard';

/** Whether the request carries the access token of a Premium account (no token: no). */
export function premiumViewer(app: FastifyInstance): (request: FastifyRequest) => Promise<boolean> {
  return async (request) => {
    const token = bearerToken(request);
    const principal = token === null ? null : await app.accessTokens.verify(token);
    return principal !== null && (await app.plans.planOf(principal.userId)) === 'premium';
  };
}

/** The account whose access token the request carries, or null (no token, or one not valid). */
export function viewerId(app: FastifyInstance): (request: FastifyRequest) => Promise<string | null> {
  return async (request) => {
    const token = bearerToken(request);
    const principal = token === null ? null : await app.accessTokens.verify(token);
    return principal?.userId ?? null;
  };
}

/**
 * The news sources a request may not see: those of `PREMIUM_NEWS_SOURCES`, unless it comes from a
 * Premium account. What the history hides, every other view of the signals hides too.
 */
export function hiddenSources(app: FastifyInstance): (request: FastifyRequest) => Promise<readonly string[]> {
  const premium = [...app.config.PREMIUM_NEWS_SOURCES];
  const isPremium = premiumViewer(app);
  return async (request) => (premium.length > 0 && !(await isPremium(request)) ? premium : []);
}
