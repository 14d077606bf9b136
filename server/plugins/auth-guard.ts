import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { SignJWT, jwtVerify } from 'jose';
import { Role } from '../../src/contracts/auth';
import { appError } from './errors';
import type { Principal } from './principal';
import { SessionWatch } from './session-watch';

export type { Principal } from './principal';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Access tokens: HS256 JWTs, 15 minutes, carrying the user id and role. Kept in browser memory only. */
export interface AccessTokens {
  readonly ttlSeconds: number;
  sign(principal: Principal): Promise<string>;
  /** The principal, or null for a missing, forged or expired token. */
  verify(token: string): Promise<Principal | null>;
}

declare module 'fastify' {
  interface FastifyInstance {
    accessTokens: AccessTokens;
    /**
     * Whether a token may act: the admin module fills in `disabledAmong` (disabled accounts may not),
     * the auth module `endedAmong` (a token of a logged-out or revoked sign-in may not, before it
     * expires) and `steppedUp` (whether the sign-in was confirmed in the last few minutes). Each asks
     * about many at once (the sockets' periodic check) or one (every request, a socket ticket).
     */
    accountGate: {
      /** Of these accounts, the disabled ones. */
      disabledAmong(userIds: readonly string[]): Promise<ReadonlySet<string>>;
      /** Of these sign-ins, the ended ones. */
      endedAmong(familyIds: readonly string[]): Promise<ReadonlySet<string>>;
      steppedUp(userId: string, familyId: string): Promise<boolean>;
    };
    /** Closes authenticated sockets when their credential expires or their sign-in ends. */
    sessionWatch: SessionWatch;
    /**
     * A route's `preValidation` guard (so it answers before the schema does): 401 unless the request
     * carries a valid bearer token; sets `request.principal`.
     */
    requireUser(request: FastifyRequest): Promise<void>;
    /**
     * For sensitive actions, after `requireUser`: 403 `step_up_required` unless the request's sign-in was
     * confirmed (password or 2FA code asked again, or a fresh sign-in) in the last five minutes.
     */
    requireStepUp(request: FastifyRequest): Promise<void>;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

const ISSUER = 'signal-console';
const AUDIENCE = 'signal-console/api';
export const ACCESS_TTL_SECONDS = 15 * 60;

export function createAccessTokens(key: Uint8Array, now: () => number = Date.now): AccessTokens {
  return {
    ttlSeconds: ACCESS_TTL_SECONDS,
    async sign({ userId, role, familyId }) {
      const iat = Math.floor(now() / 1000);
      return new SignJWT(familyId === undefined ? { role } : { role, sid: familyId })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(userId)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt(iat)
        .setExpirationTime(iat + ACCESS_TTL_SECONDS)
        .sign(key);
    },
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, key, {
          issuer: ISSUER,
          audience: AUDIENCE,
          algorithms: ['HS256'],
          currentDate: new Date(now()),
        });
        const role = Role.safeParse(payload.role);
        // Ids go to the database as uuids: anything else is no token of ours (401), never a failed query.
        if (typeof payload.sub !== 'string' || !UUID.test(payload.sub) || !role.success) return null;
        const sid = payload.sid;
        if (sid !== undefined && (typeof sid !== 'string' || !UUID.test(sid))) return null;
        const expiresAt = typeof payload.exp === 'number' ? payload.exp * 1000 : undefined;
        return {
          userId: payload.sub,
          role: role.data,
          ...(typeof sid === 'string' ? { familyId: sid } : {}),
          ...(expiresAt === undefined ? {} : { expiresAt }),
        };
      } catch {
        return null;
      }
    },
  };
}

/** The bearer token of a request, if it has one. */
export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (header === undefined) return null;
  const match = /^Bearer ([A-Za-z0-9._~+/=-]+)$/i.exec(header.trim());
  return match?.[1] ?? null;
}

type AccountGate = FastifyInstance['accountGate'];

/** Whether the account is disabled (the gate asked about one). */
export async function isDisabled(gate: AccountGate, userId: string): Promise<boolean> {
  return (await gate.disabledAmong([userId])).has(userId);
}

/** Whether the sign-in was logged out or revoked (the gate asked about one). */
export async function sessionEnded(gate: AccountGate, familyId: string): Promise<boolean> {
  return (await gate.endedAmong([familyId])).has(familyId);
}

/** Decorates `app.accessTokens`, `app.requireUser` and `request.principal`. Needs the secrets plugin. */
export default fp(
  async function authGuardPlugin(app: FastifyInstance) {
    const tokens = createAccessTokens(app.secrets.deriveKey('jwt'));
    app.decorate('accessTokens', tokens);
    app.decorateRequest('principal', null);
    const gate = {
      disabledAmong: async (_userIds: readonly string[]): Promise<ReadonlySet<string>> => new Set(),
      endedAmong: async (_familyIds: readonly string[]): Promise<ReadonlySet<string>> => new Set(),
      steppedUp: async (_userId: string, _familyId: string) => false,
    };
    app.decorate('accountGate', gate);
    // Sockets opened with a credential close when it expires or its sign-in ends (on any node: the
    // auth module publishes `auth.sessions` when sign-ins end).
    const watch = new SessionWatch({
      endedAmong: (familyIds) => gate.endedAmong(familyIds),
      disabledAmong: (userIds) => gate.disabledAmong(userIds),
    });
    app.decorate('sessionWatch', watch);
    let unsubscribe: (() => void) | null = null;
    app.addHook('onReady', async () => {
      unsubscribe = app.bus.subscribe('auth.sessions', ({ userId }) => watch.check(userId));
    });
    app.addHook('onClose', async () => {
      unsubscribe?.();
      watch.closeAll();
    });
    app.decorate('requireUser', async (request: FastifyRequest) => {
      const token = bearerToken(request);
      const principal = token === null ? null : await tokens.verify(token);
      if (principal === null) throw appError('UNAUTHORIZED');
      const [disabled, ended] = await Promise.all([
        isDisabled(gate, principal.userId),
        principal.familyId === undefined ? false : sessionEnded(gate, principal.familyId),
      ]);
      if (disabled || ended) throw appError('UNAUTHORIZED');
      request.principal = principal;
    });
    app.decorate('requireStepUp', async (request: FastifyRequest) => {
      const principal = request.principal;
      if (principal === null) throw appError('UNAUTHORIZED');
      const fresh =
        principal.familyId !== undefined && (await gate.steppedUp(principal.userId, principal.familyId));
      if (!fresh) throw appError('STEP_UP_REQUIRED');
    });
  },
  { name: 'auth-guard', dependencies: ['secrets'] },
);
