import type { FastifyInstance } from 'fastify';
import {
  AUTH_DETAILS,
  AUTH_MESSAGES,
  ChangePasswordRequest,
  DeviceParams,
  ForgotPasswordRequest,
  ResetPasswordRequest,
} from '../../../src/contracts/auth';
import { appError, parseRequest } from '../../plugins/errors';
import { principalOf } from './http';
import { REFRESH_COOKIE, clearDeviceCookie, cookieOf } from './cookies';
import { sha256 } from './crypto';
import { AUTH_LIMIT, bodyField, limiter } from '../../plugins/rate-limit';
import type { AuthServices } from './services';

/** Remembered devices and passwords. */
export default async function accountRoutes(app: FastifyInstance, s: AuthServices) {
  const limits = {
    forgot: limiter(app, 'forgot', { ...AUTH_LIMIT, accountOf: (r) => bodyField(r, 'email') }),
    reset: limiter(app, 'reset', {
      ...AUTH_LIMIT,
      accountOf: (r) => {
        const token = bodyField(r, 'token');
        return token === null ? null : sha256(token);
      },
    }),
    change: limiter(app, 'change-password', { ...AUTH_LIMIT, accountOf: (r) => r.principal?.userId ?? null }),
  };

  app.get('/auth/devices', { preHandler: app.requireUser }, async (request) => {
    const { userId } = principalOf(request);
    const current = await s.sessions.currentOf(cookieOf(request, REFRESH_COOKIE));
    return s.sessions.listDevices(userId, current?.userId === userId ? current.deviceId : null);
  });

  app.delete('/auth/devices/:id', { preHandler: app.requireUser }, async (request, reply) => {
    const { userId } = principalOf(request);
    const { id } = parseRequest(DeviceParams, request.params, 'path');
    const current = await s.sessions.currentOf(cookieOf(request, REFRESH_COOKIE));
    if (!(await s.sessions.forgetDevice(userId, id)))
      throw appError('NOT_FOUND', AUTH_DETAILS.deviceNotFound);
    if (current?.deviceId === id) clearDeviceCookie(reply, s.cookies);
    await app.activity.record(userId, { kind: 'device_removed' });
    return { message: AUTH_MESSAGES.deviceRemoved };
  });

  app.post('/auth/devices/revoke-all', { preHandler: app.requireUser }, async (request, reply) => {
    const { userId } = principalOf(request);
    const current = await s.sessions.currentOf(cookieOf(request, REFRESH_COOKIE));
    const keepFamily = current?.userId === userId ? current.familyId : null;
    const count = await s.sessions.forgetDevices(userId, null, keepFamily);
    clearDeviceCookie(reply, s.cookies);
    await app.activity.record(userId, { kind: 'devices_revoked', detail: { count: String(count) } });
    return { message: AUTH_MESSAGES.devicesRevoked, count };
  });

  app.post('/auth/change-password', { preHandler: [app.requireUser, limits.change] }, async (request) => {
    const { userId } = principalOf(request);
    const body = parseRequest(ChangePasswordRequest, request.body);
    const current = await s.sessions.currentOf(cookieOf(request, REFRESH_COOKIE));
    const keep = current?.userId === userId ? current : null;
    const message = await s.passwords.change(userId, body.current_password, body.new_password, keep);
    // The current password was just typed: the sign-in counts as confirmed for sensitive actions.
    const { familyId } = principalOf(request);
    if (familyId !== undefined) await s.sessions.markSteppedUp(userId, familyId);
    await app.activity.record(userId, { kind: 'password_changed' });
    return { message };
  });

  app.post('/auth/forgot-password', { preHandler: limits.forgot }, async (request) => {
    const body = parseRequest(ForgotPasswordRequest, request.body);
    return { message: await s.passwords.forgot(body.email) };
  });

  app.post('/auth/reset-password', { preHandler: limits.reset }, async (request) => {
    const body = parseRequest(ResetPasswordRequest, request.body);
    return { message: await s.passwords.reset(body.token, body.newPassword) };
  });
}
