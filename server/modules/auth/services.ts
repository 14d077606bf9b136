import type { FastifyInstance } from 'fastify';
import { UsersService } from '../users/users.service';
import { AuthService } from './auth.service';
import type { CookiePolicy } from './cookies';
import { outboxMailer, smtpMailer, type Mailer } from './mailer';
import { PasswordService } from './password.service';
import { SessionsService } from './sessions.service';
import { TwoFactorService } from './twofa.service';

export interface AuthServices {
  users: UsersService;
  sessions: SessionsService;
  twoFactor: TwoFactorService;
  auth: AuthService;
  passwords: PasswordService;
  mailer: Mailer;
  cookies: CookiePolicy;
}

/** The auth module's services over the app's shared parts; reports which mailer is in use. */
export function createAuthServices(app: FastifyInstance): AuthServices {
  const db = app.database.db;
  const { config } = app;
  const users = new UsersService(db, config.ADMIN_EMAILS);
  const sessions = new SessionsService(db, app.accessTokens);
  const twoFactor = new TwoFactorService(db, app.secrets, users);
  const mailer = config.SMTP_URL ? smtpMailer(config.SMTP_URL) : outboxMailer(config.DATA_DIR, app.log);
  app.health.report('mail', mailer.kind);
  app.addHook('onClose', async () => mailer.close());
  return {
    users,
    sessions,
    twoFactor,
    auth: new AuthService({ users, sessions, twoFactor, bus: app.bus }),
    passwords: new PasswordService(db, {
      users,
      sessions,
      mailer,
      publicUrl: config.PUBLIC_URL,
      log: app.log,
    }),
    mailer,
    cookies: { secure: config.PUBLIC_URL.startsWith('https://') },
  };
}
