import type { FastifyInstance } from 'fastify';
import { Me } from '../../../src/contracts/auth';
import { adminPolicy, UsersService } from './users.service';

export default async function usersRoutes(app: FastifyInstance) {
  const users = new UsersService(app.database.db, adminPolicy(app.config));

  const schema = { summary: 'Your account', response: { 200: Me } };
  app.get('/users/me', { preValidation: app.requireUser, schema }, async (request) => {
    const principal = request.principal;
    if (principal === null) throw new Error('requireUser did not set a principal');
    return users.me(principal.userId, (id) => app.plans.statusOf(id));
  });
}
