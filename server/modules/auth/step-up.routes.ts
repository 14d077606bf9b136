import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { StepUpRequest, StepUpResponse, StepUpState } from '../../../src/contracts/auth';
import { appError } from '../../plugins/errors';
import { AUTH_LIMIT, limiter } from '../../plugins/rate-limit';
import { principalOf } from './http';
import type { AuthServices } from './services';

/**
 * Step-up: sensitive actions (adding an exchange key, unlinking the last wallet, loosening the risk
 * envelope) need a sign-in confirmed in the last five minutes. `POST /auth/step-up` confirms it with the
 * password or a 2FA code; `GET /auth/step-up` says how the account can, and until when it is confirmed.
 */
export default async function stepUpRoutes(instance: FastifyInstance, s: AuthServices) {
  const app = instance.withTypeProvider<ZodTypeProvider>();
  const limited = limiter(app, 'step-up', { ...AUTH_LIMIT, accountOf: (r) => r.principal?.userId ?? null });

  const stateSchema = {
    summary: 'How this account can confirm its sign-in, and until when it is confirmed',
    response: { 200: StepUpState },
  };
  app.get(
    '/auth/step-up',
    { preValidation: app.requireUser, schema: stateSchema },
    async (request): Promise<StepUpState> => {
      const { userId, familyId } = principalOf(request);
      const user = await s.users.findById(userId);
      if (user === undefined) throw appError('UNAUTHORIZED');
      const until = familyId === undefined ? null : await s.sessions.steppedUpUntil(userId, familyId);
      return {
        password: user.passwordHash !== null,
        two_factor: user.twoFactorEnabled,
        confirmed_until: until?.toISOString() ?? null,
      };
    },
  );

  const confirmSchema = {
    summary: 'Confirm the sign-in with the password or a 2FA code',
    body: StepUpRequest,
    response: { 200: StepUpResponse },
  };
  app.post(
    '/auth/step-up',
    { preValidation: [app.requireUser, limited], schema: confirmSchema },
    async (request) => {
      const { userId, familyId } = principalOf(request);
      const body = request.body;
      if (familyId === undefined) throw appError('SIGN_IN_REQUIRED');
      const until = await s.auth.stepUp(userId, familyId, body);
      return { confirmed_until: until.toISOString() };
    },
  );
}
