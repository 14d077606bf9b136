import type { FastifyInstance } from 'fastify';
import { AUTH_MESSAGES, TwoFactorDisableRequest, TwoFactorVerifyRequest } from '../../../src/contracts/auth';
import { appError, parseRequest } from '../../plugins/errors';
import { principalOf } from './http';
import { AUTH_LIMIT, limiter } from '../../plugins/rate-limit';
import type { AuthServices } from './services';

/** Two-factor setup, QR code, enabling and disabling. */
export default async function twoFactorRoutes(app: FastifyInstance, s: AuthServices) {
  const limited = limiter(app, '2fa', { ...AUTH_LIMIT, accountOf: (r) => r.principal?.userId ?? null });
  const guarded = { preHandler: [app.requireUser, limited] };

  /** The label an authenticator app shows next to the issuer. */
  const labelOf = async (userId: string): Promise<string> => {
    const user = await s.users.findById(userId);
    if (user === undefined) throw appError('UNAUTHORIZED');
    return user.username;
  };

  app.post('/auth/2fa/setup', guarded, async (request) => {
    const { userId } = principalOf(request);
    return s.twoFactor.setup(userId, await labelOf(userId));
  });

  app.get('/auth/2fa/qr-code', { preHandler: app.requireUser }, async (request, reply) => {
    const { userId } = principalOf(request);
    const png = await s.twoFactor.qrPng(userId, await labelOf(userId));
    return reply.type('image/png').send(png);
  });

  app.post('/auth/2fa/verify', guarded, async (request) => {
    const { userId } = principalOf(request);
    const { code } = parseRequest(TwoFactorVerifyRequest, request.body);
    const codes = await s.twoFactor.enable(userId, code);
    await app.activity.record(userId, { kind: 'two_factor_enabled' });
    return { message: AUTH_MESSAGES.twoFactorEnabled, recovery_codes: codes };
  });

  app.post('/auth/2fa/disable', guarded, async (request) => {
    const { userId } = principalOf(request);
    const { password } = parseRequest(TwoFactorDisableRequest, request.body);
    await s.twoFactor.disable(userId, password);
    // The password was just typed: the sign-in counts as confirmed for sensitive actions.
    const { familyId } = principalOf(request);
    if (familyId !== undefined) await s.sessions.markSteppedUp(userId, familyId);
    await app.activity.record(userId, { kind: 'two_factor_disabled' });
    return { message: AUTH_MESSAGES.twoFactorDisabled };
  });
}
