import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ExchangeKey, ExchangeKeyCreate, ExchangeKeys } from '../../../src/contracts/exchanges';
import { MessageResponse } from '../../../src/contracts/auth';
import { appError } from '../../plugins/errors';
import type { ExchangesService } from './exchanges.service';

function userOf(request: FastifyRequest): string {
  const principal = request.principal;
  if (principal === null) throw appError('UNAUTHORIZED');
  return principal.userId;
}

const IdParam = z.object({ id: z.string().trim().min(1).max(64) });

/** `GET/POST /exchanges/` and `DELETE /exchanges/{id}`, for the signed-in user's own keys only. */
export function registerExchangeRoutes(instance: FastifyInstance, service: ExchangesService): void {
  const app = instance.withTypeProvider<ZodTypeProvider>();
  const authed = { preValidation: app.requireUser };

  const listSchema = { summary: 'Your exchange keys (hints only)', response: { 200: ExchangeKeys } };
  app.get('/exchanges/', { ...authed, schema: listSchema }, async (request) => service.list(userOf(request)));

  const addSchema = {
    summary: 'Add an exchange key',
    description: 'Needs a sign-in confirmed in the last minutes (403 step_up_required otherwise).',
    body: ExchangeKeyCreate,
    response: { 201: ExchangeKey },
  };
  app.post('/exchanges/', { ...authed, schema: addSchema }, async (request, reply) => {
    const body = request.body;
    // A key can trade the account's money: the sign-in must have been confirmed in the last minutes.
    await app.requireStepUp(request);
    const key = await service.add(userOf(request), body);
    await app.activity.record(userOf(request), {
      kind: 'key_added',
      detail: { hint: key.keyHint, environment: key.environment },
    });
    reply.code(201);
    return key;
  });

  const deleteSchema = {
    summary: 'Delete an exchange key',
    params: IdParam,
    response: { 200: MessageResponse },
  };
  app.delete('/exchanges/:id', { ...authed, schema: deleteSchema }, async (request) => {
    const { id } = request.params;
    const hint = (await service.list(userOf(request))).find((k) => k.id === id)?.keyHint ?? '';
    await service.remove(userOf(request), id);
    await app.activity.record(userOf(request), { kind: 'key_removed', detail: { hint } });
    return { message: 'Key deleted successfully.' };
  });
}
