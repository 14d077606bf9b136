import type { FastifyInstance } from 'fastify';
import { adminPolicy, UsersService } from './users.service';

export default async function usersRoutes(app: FastifyInstance) {
  const users = new UsersService(app.database.db, adminPolicy(app.config));

  app.get('/users/me', { preHandler: app.requireUser }, async (request) => {
    const principal = request.principal;
    if (principal === null) throw new Error('requireUser did not set a principal');
    return users.me(principal.userId, (id) => app.plans.statusOf(id));
  });
}
