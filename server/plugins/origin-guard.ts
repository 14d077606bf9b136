import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { appError } from './errors';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

export const CROSS_SITE_DETAIL = 'Cross-site request refused.';

/** The origins a browser page of ours posts from: PUBLIC_URL's, and the address the request came to. */
function ownOrigins(request: FastifyRequest, publicUrl: string): string[] {
  const origins = [new URL(publicUrl).origin];
  const host = request.headers.host;
  if (host !== undefined) origins.push(`${request.protocol}://${host}`);
  return origins;
}

/**
 * Login CSRF and its kin: a state-changing request that a browser sends from another site carries that
 * site's `Origin` (or `Sec-Fetch-Site: cross-site`) and is refused with 403. Requests without either (the
 * CLI, scripts, signed provider webhooks) are not browser requests from another site and pass.
 */
export default fp(
  async function originGuard(app: FastifyInstance) {
    // A callback hook, not an async one: every request passes here, and most are GETs that need no promise.
    app.addHook('onRequest', (request, _reply, done) => {
      if (SAFE.has(request.method)) return done();
      if (request.headers['sec-fetch-site'] === 'cross-site')
        return done(appError('FORBIDDEN', CROSS_SITE_DETAIL));
      const origin = request.headers.origin;
      if (
        origin !== undefined &&
        (origin === 'null' || !ownOrigins(request, app.config.PUBLIC_URL).includes(origin))
      ) {
        return done(appError('FORBIDDEN', CROSS_SITE_DETAIL));
      }
      done();
    });
  },
  { name: 'origin-guard', dependencies: ['errors'] },
);
