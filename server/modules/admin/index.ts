import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AdminRepo } from './admin.repo';
import { registerAdminRoutes } from './admin.routes';

/**
 * The admin module: the admin panel's API over the users, billing and news modules, and its audit log.
 * It is also where a disabled account is told apart: every guarded request asks it.
 */
export default fp(
  async function adminModule(app: FastifyInstance) {
    const users = app.users;
    const audit = new AdminRepo(app.database.db);
    app.accountGate.disabledAmong = (userIds) => users.disabledAmong(userIds);
    registerAdminRoutes(app, { users, audit });
  },
  { name: 'admin', dependencies: ['auth-guard', 'users', 'billing', 'news'] },
);
