import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AUTH_DETAILS,
  AUTH_MESSAGES,
  ChangePasswordRequest,
  DeviceList,
  DeviceParams,
  ForgotPasswordRequest,
  MessageResponse,
  ResetPasswordRequest,
  RevokeDevicesRequest,
  unlinkedText,
} from '../../../src/contracts/auth';
import { appError } from '../../plugins/errors';
import { currentSignIn, principalOf } from './http';
import { REFRESH_COOKIE, clearDeviceCookie, cookieOf } from './cookies';
import { sha256 } from './crypto';
import { AUTH_LIMIT, bodyField, limiter } from '../../plugins/rate-limit';
import type { AuthServices } from './services';

const RevokedDevices = MessageResponse.extend({
  count: z.number().int(),
  /** With `unlink_wallets`: how many wallets and other linked sign-ins were unlinked. */
  unlinked: z.number().int().optional(),
});

/** Remembered devices and passwords. */
export default async function accountRoutes(instance: FastifyInstance, s: AuthServices) {
  const app = instance.withTypeProvider<ZodTypeProvider>();
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

  const devicesSchema = { summary: 'Your remembered devices', response: { 200: DeviceList } };
  app.get('/auth/devices', { preValidation: app.requireUser, schema: devicesSchema }, async (request) => {
    const { userId } = principalOf(request);
    const current = await s.sessions.currentOf(cookieOf(request, REFRESH_COOKIE));
    return s.sessions.listDevices(userId, current?.userId === userId ? current.deviceId : null);
  });

  const forgetSchema = {
    summary: 'Forget a device',
    params: DeviceParams,
    response: { 200: MessageResponse },
  };
  app.delete(
    '/auth/devices/:id',
    { preValidation: app.requireUser, schema: forgetSchema },
    async (request, reply) => {
      const { userId } = principalOf(request);
      const { id } = request.params;
      const current = await s.sessions.currentOf(cookieOf(request, REFRESH_COOKIE));
      if (!(await s.sessions.forgetDevice(userId, id)))
        throw appError('NOT_FOUND', AUTH_DETAILS.deviceNotFound);
      if (current?.deviceId === id) clearDeviceCookie(reply, s.cookies);
      await app.activity.record(userId, { kind: 'device_removed' });
      return { message: AUTH_MESSAGES.deviceRemoved };
    },
  );

  const revokeSchema = {
    summary: 'Forget every other device',
    description:
      'With `unlink_wallets: true`, also unlinks every wallet, Google and Twitter account and ends every sign-in they started (an account without a password keeps the one it is signed in with); that part needs a sign-in confirmed in the last minutes (403 `step_up_required`).',
    body: RevokeDevicesRequest,
    response: { 200: RevokedDevices },
  };
  app.post(
    '/auth/devices/revoke-all',
    { preValidation: app.requireUser, schema: revokeSchema },
    async (request, reply) => {
      const { userId, familyId } = principalOf(request);
      const unlink = request.body?.unlink_wallets === true;
      // Unlinking changes how the account signs in: confirmed before anything is revoked.
      if (unlink) await app.requireStepUp(request);
      const current = await s.sessions.currentOf(cookieOf(request, REFRESH_COOKIE));
      const keepFamily = current?.userId === userId ? current.familyId : null;
      const count = await s.sessions.forgetDevices(userId, null, keepFamily);
      clearDeviceCookie(reply, s.cookies);
      await app.activity.record(userId, { kind: 'devices_revoked', detail: { count: String(count) } });
      if (!unlink) return { message: AUTH_MESSAGES.devicesRevoked, count };
      const unlinked = await s.identities.unlinkAll(userId, await currentSignIn(s, userId, familyId));
      const message =
        unlinked === 0
          ? AUTH_MESSAGES.devicesRevoked
          : `${AUTH_MESSAGES.devicesRevoked} ${unlinkedText(unlinked)}`;
      return { message, count, unlinked };
    },
  );

  const changeSchema = {
    summary: 'Change your password',
    description:
      'Ends every other session. With `unlink_wallets: true`, also unlinks every wallet, Google and Twitter account and ends every sign-in they started.',
    body: ChangePasswordRequest,
    response: { 200: MessageResponse },
  };
  const changeOptions = { preValidation: [app.requireUser, limits.change], schema: changeSchema };
  app.post('/auth/change-password', changeOptions, async (request) => {
    const { userId } = principalOf(request);
    const body = request.body;
    const current = await s.sessions.currentOf(cookieOf(request, REFRESH_COOKIE));
    const keep = current?.userId === userId ? current : null;
    const changed = await s.passwords.change(userId, body.current_password, body.new_password, keep);
    // The current password was just typed: the sign-in counts as confirmed for sensitive actions.
    const { familyId } = principalOf(request);
    if (familyId !== undefined) await s.sessions.markSteppedUp(userId, familyId);
    await app.activity.record(userId, { kind: 'password_changed' });
    if (body.unlink_wallets !== true) return { message: changed };
    const unlinked = await s.identities.unlinkAll(userId, await currentSignIn(s, userId, familyId));
    return { message: unlinked === 0 ? changed : `${changed} ${unlinkedText(unlinked)}` };
  });

  const forgotSchema = {
    summary: 'Mail a password reset link',
    body: ForgotPasswordRequest,
    response: { 200: MessageResponse },
  };
  app.post(
    '/auth/forgot-password',
    { preValidation: limits.forgot, schema: forgotSchema },
    async (request) => {
      const body = request.body;
      return { message: await s.passwords.forgot(body.email) };
    },
  );

  const resetSchema = {
    summary: 'Set a new password with a reset token',
    body: ResetPasswordRequest,
    response: { 200: MessageResponse },
  };
  app.post('/auth/reset-password', { preValidation: limits.reset, schema: resetSchema }, async (request) => {
    const body = request.body;
    return { message: await s.passwords.reset(body.token, body.newPassword) };
  });
}
