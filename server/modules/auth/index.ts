import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import authRoutes from './auth.routes';
import { createAuthServices, type AuthServices } from './services';

declare module 'fastify' {
  interface FastifyInstance {
    auth: AuthServices;
  }
}

/**
 * The auth module: accounts, sign-in (password, 2FA, remembered devices, OAuth, wallets), sessions and
 * step-up confirmations. Its services are built over the app's shared parts and decorated as `app.auth`;
 * the routes only parse and answer.
 */
export default fp(
  async function authModule(app: FastifyInstance) {
    const services = await createAuthServices(app);
    app.decorate('auth', services);
    await authRoutes(app, services);
  },
  { name: 'auth', dependencies: ['auth-guard', 'activity'] },
);
