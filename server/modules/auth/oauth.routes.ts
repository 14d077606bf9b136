import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ProvidersResponse } from '../../../src/contracts/web3';
import { describeUserAgent } from '../../../src/contracts/userAgent';
import { OAUTH_COOKIE, clearOAuthCookie, cookieOf, setOAuthCookie, setSessionCookies } from './cookies';
import { fingerprintOf } from './device-info';
import { OAUTH_TTL_MS, type SocialProvider } from './oauth.service';
import type { AuthServices } from './services';

const LoginQuery = z.object({ remember_me: z.enum(['true', 'false', '1', '0']).optional() });
const CallbackQuery = z.object({
  code: z.string().max(2048).optional(),
  state: z.string().max(512).optional(),
  error: z.string().max(256).optional(),
});

const Redirect = z.undefined().describe('Found: the browser goes on to the `Location` header.');

/**
 * Google and Twitter sign-in: `/login` sends the browser to the provider, `/callback` comes back with the
 * code, signs in, and sends the browser home (the app resumes the session from the refresh cookie), or
 * to the two-factor step when the account has it on.
 */
export default async function oauthRoutes(instance: FastifyInstance, s: AuthServices) {
  const app = instance.withTypeProvider<ZodTypeProvider>();
  const providersSchema = { summary: 'Which social sign-ins are on', response: { 200: ProvidersResponse } };
  app.get('/auth/providers', { schema: providersSchema }, async (): Promise<ProvidersResponse> => ({
    google: s.oauth.enabled('google'),
    twitter: s.oauth.enabled('twitter'),
  }));

  for (const provider of ['google', 'twitter'] as const satisfies SocialProvider[]) {
    const loginSchema = {
      summary: `Start a ${provider} sign-in (a browser redirect)`,
      querystring: LoginQuery,
      response: { 302: Redirect },
    };
    app.get(`/auth/${provider}/login`, { schema: loginSchema }, async (request, reply) => {
      const query = request.query;
      const remember = query.remember_me === 'true' || query.remember_me === '1';
      const { url, cookie } = await s.oauth.start(provider, remember);
      setOAuthCookie(reply, cookie, OAUTH_TTL_MS / 1000, s.cookies);
      return reply.redirect(url, 302);
    });

    const callbackSchema = {
      summary: `Where ${provider} sends the browser back (a redirect home)`,
      querystring: CallbackQuery,
      response: { 302: Redirect },
    };
    app.get(`/auth/${provider}/callback`, { schema: callbackSchema }, async (request, reply) => {
      const query = request.query;
      const presented = cookieOf(request, OAUTH_COOKIE);
      clearOAuthCookie(reply, s.cookies);
      const { user, identity, remember } = await s.oauth.finish(provider, query, presented);
      const userAgent = request.headers['user-agent'];
      const deviceInfo = describeUserAgent(userAgent);
      const device = { deviceInfo, fingerprint: fingerprintOf(deviceInfo, userAgent) };
      const via = { method: provider, identity };
      const outcome = await s.auth.finish(user, remember ? device : null, device, via);
      if (outcome.kind === 'two-factor') {
        // In the fragment: the browser keeps it out of requests, proxies and logs.
        return reply.redirect(`/#two_factor=${encodeURIComponent(outcome.challenge)}`, 302);
      }
      setSessionCookies(reply, outcome.session, s.cookies);
      return reply.redirect('/', 302);
    });
  }
}
