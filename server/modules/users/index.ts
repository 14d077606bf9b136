import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { FeedFiltersRepo } from './feed-filters.repo';
import { registerFeedFilterRoutes } from './feed-filters.routes';
import { FeedFiltersService } from './feed-filters.service';
import { registerUsersRoutes } from './users.routes';
import { adminPolicy, UsersService } from './users.service';

declare module 'fastify' {
  interface FastifyInstance {
    users: UsersService;
    /** Each account's feed filter: the news module applies it to the list and the stream it sends. */
    feedFilters: FeedFiltersService;
  }
}

/** The users module: the signed-in user's own account and settings (the feed filter). */
export default fp(
  async function usersModule(app: FastifyInstance) {
    const users = new UsersService(app.database.db, adminPolicy(app.config));
    app.decorate('users', users);
    const log = app.log.child({ module: 'users' });
    const feedFilters = new FeedFiltersService(new FeedFiltersRepo(app.database.db), app.bus, (err) =>
      log.warn({ err }, 'feed filter change not shared'),
    );
    app.decorate('feedFilters', feedFilters);
    registerUsersRoutes(app, users);
    registerFeedFilterRoutes(app, feedFilters);
    app.addHook('onClose', async () => feedFilters.close());
  },
  { name: 'users', dependencies: ['auth-guard', 'plans'] },
);
