import type { FastifyInstance } from 'fastify';
import { adminPolicy, UsersService } from '../users/users.service';
import type { PublicClient } from 'viem';
import { AuthService } from './auth.service';
import type { CookiePolicy } from './cookies';
import type { Mailer } from './mailer';
import { PasswordService } from './password.service';
import { SessionsService } from './sessions.service';
import { TwoFactorService } from './twofa.service';
import { IdentityService } from './identity.service';
import { MemoryLoginThrottle, RedisLoginThrottle, type LoginThrottle } from './login-throttle';
import { OAuthService } from './oauth.service';
import { Web3Service } from './web3.service';

export interface AuthServices {
  users: UsersService;
  sessions: SessionsService;
  twoFactor: TwoFactorService;
  auth: AuthService;
  passwords: PasswordService;
  mailer: Mailer;
  cookies: CookiePolicy;
  identities: IdentityService;
  web3: Web3Service;
  oauth: OAuthService;
}

/** A mainnet JSON-RPC client (loaded only when ETH_RPC_URL is set: viem's chain list is large). */
async function mainnetClient(url: string): Promise<PublicClient> {
  const [{ createPublicClient, http }, { mainnet }] = await Promise.all([
    import('viem'),
    import('viem/chains'),
  ]);
  return createPublicClient({ chain: mainnet, transport: http(url, { timeout: 10_000 }) });
}

/** Failed logins counted in Redis when the processes share one (REDIS_URL), else in this process. */
function loginThrottle(app: FastifyInstance): LoginThrottle {
  const shared = app.sharedLimits;
  if (shared === null) return new MemoryLoginThrottle();
  return new RedisLoginThrottle({
    redis: shared.redis,
    prefix: shared.prefix,
    unreachable: shared.unreachable,
  });
}

/** The auth module's services over the app's shared parts; reports which mailer is in use. */
export async function createAuthServices(app: FastifyInstance): Promise<AuthServices> {
  const db = app.database.db;
  const { config } = app;
  const users = new UsersService(db, adminPolicy(config));
  const sessions = new SessionsService(db, app.accessTokens, undefined, {
    remembered: (userId, device) =>
      app.activity.record(userId, {
        kind: 'sign_in',
        detail: { method: 'remembered' },
        device: { info: device.deviceInfo, fingerprint: device.fingerprint },
      }),
    ended: (userId) => {
      void app.bus.publish('auth.sessions', { userId }).catch((err: unknown) => {
        app.log.warn({ err }, 'session end not published');
      });
    },
  });
  app.accountGate.endedAmong = (familyIds) => sessions.endedAmong(familyIds);
  app.accountGate.steppedUp = async (userId, familyId) =>
    (await sessions.steppedUpUntil(userId, familyId)) !== null;
  const twoFactor = new TwoFactorService(db, app.secrets, users);
  const mailer = app.mailer;
  const passwords = new PasswordService(db, {
    users,
    sessions,
    mailer,
    publicUrl: config.PUBLIC_URL,
    log: app.log,
    activity: app.activity,
  });
  // Reset mails asked for just before shutdown still go out (or fail and are logged) first.
  app.addHook('preClose', async () => passwords.idle());
  const identities = new IdentityService(db, adminPolicy(config), { activity: app.activity, sessions });
  const rpc = config.ETH_RPC_URL ? await mainnetClient(config.ETH_RPC_URL) : null;
  const google =
    config.GOOGLE_CLIENT_ID && config.GOOGLE_CLIENT_SECRET
      ? {
          clientId: config.GOOGLE_CLIENT_ID,
          clientSecret: config.GOOGLE_CLIENT_SECRET,
          issuer: config.GOOGLE_ISSUER,
        }
      : null;
  const twitter =
    config.TWITTER_CLIENT_ID && config.TWITTER_CLIENT_SECRET
      ? {
          clientId: config.TWITTER_CLIENT_ID,
          clientSecret: config.TWITTER_CLIENT_SECRET,
          authorizeUrl: config.TWITTER_AUTHORIZE_URL,
          apiUrl: config.TWITTER_API_URL,
        }
      : null;
  return {
    identities,
    web3: new Web3Service({ identities, publicUrl: config.PUBLIC_URL, rpc }),
    oauth: new OAuthService({ publicUrl: config.PUBLIC_URL, google, twitter }, app.secrets, identities),
    users,
    sessions,
    twoFactor,
    auth: new AuthService({
      users,
      sessions,
      twoFactor,
      identities,
      bus: app.bus,
      activity: app.activity,
      throttle: loginThrottle(app),
      signupAttempted: (owner) => passwords.signupAttempted(owner),
    }),
    passwords,
    mailer,
    cookies: { secure: config.PUBLIC_URL.startsWith('https://') },
  };
}
