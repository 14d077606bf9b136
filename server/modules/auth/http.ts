import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccessTokenResponse } from '../../../src/contracts/auth';
import type { Principal } from '../../plugins/auth-guard';
import type { CurrentSignIn } from './identity.service';
import { setSessionCookies } from './cookies';
import type { AuthServices } from './services';
import type { IssuedSession } from './sessions.service';

/** The principal `requireUser` set; a route behind it always has one. */
export function principalOf(request: FastifyRequest): Principal {
  if (request.principal === null) throw new Error('route is not behind requireUser');
  return request.principal;
}

/** Sets the cookies of a new or refreshed session and answers its access token. */
export function answerSession(
  reply: FastifyReply,
  s: AuthServices,
  session: IssuedSession,
): AccessTokenResponse {
  setSessionCookies(reply, session, s.cookies);
  return { access_token: session.accessToken, token_type: 'bearer' };
}

/** The sign-in a request's token belongs to and the identity that started it, for what an unlink keeps. */
export async function currentSignIn(
  s: AuthServices,
  userId: string,
  familyId: string | undefined,
): Promise<CurrentSignIn> {
  if (familyId === undefined) return { familyId: null, identityId: null };
  const credential = await s.sessions.credentialOf(userId, familyId);
  return { familyId, identityId: credential?.identityId ?? null };
}
