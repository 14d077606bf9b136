import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AUTH_MESSAGES,
  MessageResponse,
  TwoFactorDisableRequest,
  TwoFactorEnabledResponse,
  TwoFactorSetupResponse,
  TwoFactorVerifyRequest,
} from '../../../src/contracts/auth';
import { appError } from '../../plugins/errors';
import { principalOf } from './http';
import { AUTH_LIMIT, limiter } from '../../plugins/rate-limit';
import type { AuthServices } from './services';

/** Two-factor setup, QR code, enabling and disabling. */
export default async function twoFactorRoutes(instance: FastifyInstance, s: AuthServices) {
  const app = instance.withTypeProvider<ZodTypeProvider>();
  const limited = limiter(app, '2fa', { ...AUTH_LIMIT, accountOf: (r) => r.principal?.userId ?? null });
  const guarded = { preValidation: [app.requireUser, limited] };
  // Turning 2FA on is a change to how the account signs in: whoever holds a token alone must not put
  // their own authenticator on it (nor read the secret being set up). Each step asks for a sign-in
  // confirmed in the last minutes, the setup's confirmation covering the steps right after it.
  const confirmed = { preValidation: [app.requireUser, limited, app.requireStepUp] };

  /** The label an authenticator app shows next to the issuer. */
  const labelOf = async (userId: string): Promise<string> => {
    const user = await s.users.findById(userId);
    if (user === undefined) throw appError('UNAUTHORIZED');
    return user.username;
  };

  const setupSchema = {
    summary: 'Start two-factor setup',
    description: 'Needs a sign-in confirmed in the last minutes (403 `step_up_required`).',
    response: { 200: TwoFactorSetupResponse },
  };
  app.post('/auth/2fa/setup', { ...confirmed, schema: setupSchema }, async (request) => {
    const { userId } = principalOf(request);
    return s.twoFactor.setup(userId, await labelOf(userId));
  });

  const qrSchema = {
    summary: 'The setup secret as a QR code',
    response: { 200: { description: 'A PNG image', content: { 'image/png': { schema: z.string() } } } },
  };
  // A PNG is bytes, which the typed instance would not let a handler send.
  instance.get(
    '/auth/2fa/qr-code',
    { preValidation: [app.requireUser, app.requireStepUp], schema: qrSchema },
    async (request, reply) => {
      const { userId } = principalOf(request);
      const png = await s.twoFactor.qrPng(userId, await labelOf(userId));
      return reply.type('image/png').send(png);
    },
  );

  const verifySchema = {
    summary: 'Turn two-factor on with a first code',
    description:
      'Needs a sign-in confirmed in the last minutes (403 `step_up_required`). The owner is mailed.',
    body: TwoFactorVerifyRequest,
    response: { 200: TwoFactorEnabledResponse },
  };
  app.post('/auth/2fa/verify', { ...confirmed, schema: verifySchema }, async (request) => {
    const { userId } = principalOf(request);
    const { code } = request.body;
    const codes = await s.twoFactor.enable(userId, code);
    await app.activity.record(userId, { kind: 'two_factor_enabled' });
    return { message: AUTH_MESSAGES.twoFactorEnabled, recovery_codes: codes };
  });

  const disableSchema = {
    summary: 'Turn two-factor off',
    body: TwoFactorDisableRequest,
    response: { 200: MessageResponse },
  };
  app.post('/auth/2fa/disable', { ...guarded, schema: disableSchema }, async (request) => {
    const { userId } = principalOf(request);
    const { password } = request.body;
    await s.twoFactor.disable(userId, password);
    // The password was just typed: the sign-in counts as confirmed for sensitive actions.
    const { familyId } = principalOf(request);
    if (familyId !== undefined) await s.sessions.markSteppedUp(userId, familyId);
    await app.activity.record(userId, { kind: 'two_factor_disabled' });
    return { message: AUTH_MESSAGES.twoFactorDisabled };
  });
}
