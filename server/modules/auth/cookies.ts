import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IssuedSession } from './sessions.service';

export const REFRESH_COOKIE = 'sc_refresh';
export const DEVICE_COOKIE = 'sc_device';
/** Only the auth routes ever see these cookies. */
export const COOKIE_PATH = '/api/auth';

export interface CookiePolicy {
  /** Secure when PUBLIC_URL is https. */
  secure: boolean;
}

const base = (policy: CookiePolicy) =>
  ({ httpOnly: true, sameSite: 'strict', secure: policy.secure, path: COOKIE_PATH }) as const;

/** Sets the refresh cookie (a session cookie unless remember-me) and, when issued, the device cookie. */
export function setSessionCookies(reply: FastifyReply, session: IssuedSession, policy: CookiePolicy): void {
  reply.setCookie(REFRESH_COOKIE, session.refreshToken, {
    ...base(policy),
    ...(session.persistent ? { expires: session.refreshExpiresAt } : {}),
  });
  if (session.deviceToken !== undefined && session.deviceExpiresAt !== undefined) {
    reply.setCookie(DEVICE_COOKIE, session.deviceToken, {
      ...base(policy),
      expires: session.deviceExpiresAt,
    });
  }
}

export function clearRefreshCookie(reply: FastifyReply, policy: CookiePolicy): void {
  reply.clearCookie(REFRESH_COOKIE, base(policy));
}

export function clearDeviceCookie(reply: FastifyReply, policy: CookiePolicy): void {
  reply.clearCookie(DEVICE_COOKIE, base(policy));
}

export function cookieOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.cookies[name];
  return value === undefined || value === '' ? undefined : value;
}

/** The pending Google/Twitter sign-in: Lax, because the provider's redirect back is a cross-site navigation. */
export const OAUTH_COOKIE = 'sc_oauth';

const oauthBase = (policy: CookiePolicy) =>
  ({ httpOnly: true, sameSite: 'lax', secure: policy.secure, path: COOKIE_PATH }) as const;

export function setOAuthCookie(
  reply: FastifyReply,
  value: string,
  maxAgeSeconds: number,
  policy: CookiePolicy,
) {
  reply.setCookie(OAUTH_COOKIE, value, { ...oauthBase(policy), maxAge: maxAgeSeconds });
}

export function clearOAuthCookie(reply: FastifyReply, policy: CookiePolicy): void {
  reply.clearCookie(OAUTH_COOKIE, oauthBase(policy));
}
