import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AUTH_MESSAGES,
  AccessTokenResponse,
  LoginForm,
  LoginResponse,
  MessageResponse,
  SignupRequest,
  SignupResponse,
  TwoFactorLoginRequest,
  VerifyResponse,
} from '../../../src/contracts/auth';
import accountRoutes from './account.routes';
import { DEVICE_COOKIE, REFRESH_COOKIE, clearDeviceCookie, clearRefreshCookie, cookieOf } from './cookies';
import { deviceInfoFrom, fingerprintOf } from './device-info';
import { answerSession, principalOf } from './http';
import { AUTH_LIMIT, bodyField, limiter } from '../../plugins/rate-limit';
import type { AuthServices } from './services';
import { sha256 } from './crypto';

const NoSession = z.undefined().describe('No cookie: there is no session to resume.');
const SESSION_COOKIES = `The refresh token travels in the \`${REFRESH_COOKIE}\` cookie (HttpOnly), never in the body.`;
import stepUpRoutes from './step-up.routes';
import twoFactorRoutes from './twofa.routes';
import oauthRoutes from './oauth.routes';
import web3Routes from './web3.routes';

/**
 * Module auth: sign-up, the login steps, refresh, logout and auto-login here; devices and passwords in
 * account.routes.ts; 2FA in twofa.routes.ts.
 */
export default async function authRoutes(instance: FastifyInstance, s: AuthServices) {
  const app = instance.withTypeProvider<ZodTypeProvider>();
  const limits = {
    // The username and the e-mail of one account count in one bucket; a device the account remembered
    // counts in its own, so that guesses from elsewhere do not lock its owner out.
    login: limiter(app, 'login', {
      ...AUTH_LIMIT,
      accountOf: async (r) => {
        const login = bodyField(r, 'username');
        // A login that brings a 2FA code is counted per address only: it gets in only with the password
        // and a fresh code together, and the service counts each miss in the account's failed-login
        // run, so an account bucket here would serve only to let others keep its owner out.
        if (login === null || bodyField(r, 'code') !== null) return null;
        const user = await s.users.findByLogin(login);
        if (user === undefined) return `login:${login}`;
        const device = cookieOf(r, DEVICE_COOKIE);
        if (device !== undefined && (await s.sessions.deviceOwner(device)) === user.id) {
          return `device:${sha256(device)}`;
        }
        return `user:${user.id}`;
      },
    }),
    twoFactorLogin: limiter(app, '2fa-login', { ...AUTH_LIMIT, accountOf: (r) => bodyField(r, 'user_id') }),
    signup: limiter(app, 'signup', { ...AUTH_LIMIT, accountOf: (r) => bodyField(r, 'email') }),
  };

  const signupSchema = {
    summary: 'Create an account',
    description:
      'An e-mail that already has an account is answered as a new one is, and its owner is mailed instead (at most hourly): the answer never says whether an address is registered. A taken username (a public handle) is a 409.',
    body: SignupRequest,
    response: { 201: SignupResponse },
  };
  app.post('/auth/signup', { preValidation: limits.signup, schema: signupSchema }, async (request, reply) => {
    const answer = await s.auth.signup(request.body);
    reply.code(201);
    return answer;
  });

  const tokenSchema = {
    summary: 'Sign in with a username (or e-mail) and password',
    description: `An access token for \`Authorization: Bearer …\`, or a two-factor challenge. ${SESSION_COOKIES}`,
    consumes: ['application/x-www-form-urlencoded', 'application/json'],
    body: LoginForm,
    response: { 200: LoginResponse },
  };
  app.post('/auth/token', { preValidation: limits.login, schema: tokenSchema }, async (request, reply) => {
    const form = request.body;
    const userAgent = request.headers['user-agent'];
    const deviceInfo = deviceInfoFrom(form.device_info, userAgent);
    const device = { deviceInfo, fingerprint: fingerprintOf(deviceInfo, userAgent) };
    const remembered = cookieOf(request, DEVICE_COOKIE);
    const outcome = await s.auth.login({
      login: form.username,
      password: form.password,
      remember: form.remember_me ? device : null,
      device,
      rememberedBy: remembered === undefined ? null : await s.sessions.deviceOwner(remembered),
      code: form.code ?? null,
    });
    if (outcome.kind === 'two-factor')
      return { two_factor_required: true as const, user_id: outcome.challenge };
    return answerSession(reply, s, outcome.session);
  });

  const twoFactorSchema = {
    summary: 'Finish a sign-in with a 2FA code',
    body: TwoFactorLoginRequest,
    response: { 200: AccessTokenResponse },
  };
  app.post(
    '/auth/2fa/login',
    { preValidation: limits.twoFactorLogin, schema: twoFactorSchema },
    async (request, reply) => {
      const body = request.body;
      return answerSession(reply, s, await s.auth.loginTwoFactor(body.user_id, body.code));
    },
  );

  // Without a refresh cookie there is no session to resume: an ordinary answer, not an error.
  const refreshSchema = {
    summary: 'A new access token from the refresh cookie',
    description: `${SESSION_COOKIES} It is rotated on every use.`,
    response: { 200: AccessTokenResponse, 204: NoSession },
  };
  app.post('/auth/refresh', { schema: refreshSchema }, async (request, reply) => {
    const presented = cookieOf(request, REFRESH_COOKIE);
    if (presented === undefined) return reply.code(204).send();
    try {
      return answerSession(reply, s, await s.sessions.refresh(presented, (id) => s.auth.roleOf(id)));
    } catch (err) {
      clearRefreshCookie(reply, s.cookies);
      throw err;
    }
  });

  const autoLoginSchema = {
    summary: 'Sign in again from a remembered device',
    description: `The device travels in the \`${DEVICE_COOKIE}\` cookie.`,
    response: { 200: AccessTokenResponse, 204: NoSession },
  };
  app.post('/auth/auto-login', { schema: autoLoginSchema }, async (request, reply) => {
    const presented = cookieOf(request, DEVICE_COOKIE);
    if (presented === undefined) return reply.code(204).send();
    try {
      return answerSession(reply, s, await s.sessions.autoLogin(presented, (id) => s.auth.roleOf(id)));
    } catch (err) {
      clearDeviceCookie(reply, s.cookies);
      throw err;
    }
  });

  const logoutSchema = {
    summary: 'Sign out: ends the session of the refresh cookie',
    response: { 200: MessageResponse },
  };
  app.post('/auth/logout', { schema: logoutSchema }, async (request, reply) => {
    await s.sessions.logout(cookieOf(request, REFRESH_COOKIE), cookieOf(request, DEVICE_COOKIE));
    clearRefreshCookie(reply, s.cookies);
    clearDeviceCookie(reply, s.cookies);
    return { message: AUTH_MESSAGES.loggedOut };
  });

  const verifySchema = { summary: 'Whether the access token is valid', response: { 200: VerifyResponse } };
  app.get('/auth/verify', { preValidation: app.requireUser, schema: verifySchema }, async (request) => {
    const { userId, role } = principalOf(request);
    return { valid: true as const, user_id: userId, role };
  });

  await accountRoutes(app, s);
  await twoFactorRoutes(app, s);
  await stepUpRoutes(app, s);
  await web3Routes(app, s);
  await oauthRoutes(app, s);
}
