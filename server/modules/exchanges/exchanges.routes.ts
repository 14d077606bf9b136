import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ExchangeKeyCreate } from '../../../src/contracts/exchanges';
import { appError, parseRequest } from '../../plugins/errors';
import type { ExchangesService } from './exchanges.service';

function userOf(request: FastifyRequest): string {
  const principal = request.principal;
  if (principal === null) throw appError('UNAUTHORIZED');
  return principal.userId;
}

const IdParam = z.object({ id: z.string().trim().min(1).max(64) });

/** `GET/POST /exchanges/` and `DELETE /exchanges/{id}`, for the signed-in user's own keys only. */
export function registerExchangeRoutes(app: FastifyInstance, service: ExchangesService): void {
  const authed = { preHandler: app.requireUser };

  app.get('/exchanges/', authed, async (request) => service.list(userOf(request)));

  app.post('/exchanges/', authed, async (request, reply) => {
    const body = parseRequest(ExchangeKeyCreate, request.body);
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

  app.delete('/exchanges/:id', authed, async (request) => {
    const { id } = parseRequest(IdParam, request.params, 'path');
    const hint = (await service.list(userOf(request))).find((k) => k.id === id)?.keyHint ?? '';
    await service.remove(userOf(request), id);
    await app.activity.record(userOf(request), { kind: 'key_removed', detail: { hint } });
    return { message: 'Key deleted successfully.' };
  });
}
