import type { FastifyInstance } from 'fastify';
import { Me } from '../../../src/contracts/auth';
import type { UsersService } from './users.service';

/** `GET /users/me`. */
export function registerUsersRoutes(app: FastifyInstance, users: UsersService): void {
  const schema = { summary: 'Your account', response: { 200: Me } };
  app.get('/users/me', { preValidation: app.requireUser, schema }, async (request) => {
    const principal = request.principal;
    if (principal === null) throw new Error('requireUser did not set a principal');
    return users.me(principal.userId, (id) => app.plans.statusOf(id));
  });
}
