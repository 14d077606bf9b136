import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { registerUsersRoutes } from './users.routes';
import { adminPolicy, UsersService } from './users.service';

declare module 'fastify' {
  interface FastifyInstance {
    users: UsersService;
  }
}

/** The users module: the signed-in user's own account. */
export default fp(
  async function usersModule(app: FastifyInstance) {
    const users = new UsersService(app.database.db, adminPolicy(app.config));
    app.decorate('users', users);
    registerUsersRoutes(app, users);
  },
  { name: 'users', dependencies: ['auth-guard', 'plans'] },
);
