import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import fp from 'fastify-plugin';
import { ActivityList, ActivityQuery } from '../../../src/contracts/activity';
import { outboxMailer, smtpMailer, type Mailer } from '../auth/mailer';
import { principalOf } from '../auth/http';
import { UsersService, adminPolicy } from '../users/users.service';
import { ActivityRepo } from './activity.repo';
import { ActivityService } from './activity.service';

declare module 'fastify' {
  interface FastifyInstance {
    /** The account activity log every module records to. */
    activity: ActivityService;
    /** Mail to users: SMTP with `SMTP_URL`, the outbox folder otherwise. */
    mailer: Mailer;
  }
}

/**
 * The mailer and the activity log, shared by every module (registered before them): sign-ins, failed
 * attempts, 2FA and password changes, keys, devices, plan and kill switch, readable by the owner at
 * `GET /account/activity`.
 */
export default fp(
  async function activityModule(app: FastifyInstance) {
    const { config } = app;
    const mailer = config.SMTP_URL ? smtpMailer(config.SMTP_URL) : outboxMailer(config.DATA_DIR, app.log);
    app.health.report('mail', mailer.kind);
    app.decorate('mailer', mailer);
    app.addHook('onClose', async () => mailer.close());

    const users = new UsersService(app.database.db, adminPolicy(config));
    const activity = new ActivityService({
      repo: new ActivityRepo(app.database.db),
      mailer,
      addressOf: async (userId) => users.findById(userId),
      log: app.log.child({ module: 'activity' }),
      publicUrl: config.PUBLIC_URL,
    });
    app.decorate('activity', activity);

    const schema = {
      summary: 'What happened to your account',
      querystring: ActivityQuery,
      response: { 200: ActivityList },
    };
    app
      .withTypeProvider<ZodTypeProvider>()
      .get('/account/activity', { preValidation: app.requireUser, schema }, async (request) => {
        const { limit } = request.query;
        return ActivityList.parse(await activity.list(principalOf(request).userId, limit));
      });
  },
  { name: 'activity', dependencies: ['auth-guard'] },
);
