import { z } from 'zod';
import * as account from '../../services/auth/account';
import { RECOVERY_TEXT } from '../../services/auth/recoveryCodes';
import { failure, info, muted, success, type OutputLine } from '../../services/terminal/output';
import { deviceIds } from '../providers';
import { defineCommand } from '../types';
import { utcStamp } from '../../services/time';
import { CANCELLED, askSecret, authDeps } from './authShared';

const AREA = 'account';

const result = (outcome: { ok: boolean; message?: string }): OutputLine[] =>
  outcome.ok ? [success(outcome.message ?? 'Done.')] : [failure(outcome.message ?? '')];

export const twoFactorSetup = defineCommand({
  name: '2fa setup',
  area: AREA,
  summary: 'Start two-factor login: prints the secret and shows the QR code.',
  usage: '2fa setup',
  examples: ['2fa setup'],
  args: z.object({}),
  loginRequired: true,
  async run(ctx) {
    const outcome = await account.startTwoFactorSetup(authDeps(ctx));
    if (!outcome.ok) return [failure(outcome.message)];
    ctx.stores.ui.openAccountModal('security');
    return [
      info(`Secret: ${outcome.secret ?? ''}`),
      info(`URI: ${outcome.uri ?? ''}`),
      muted('Add it to an authenticator app (the QR code is in the Account window), then: 2fa verify <code>'),
    ];
  },
});

export const twoFactorVerify = defineCommand({
  name: '2fa verify',
  area: AREA,
  summary: 'Turn two-factor login on with a code from the authenticator app.',
  usage: '2fa verify <code>',
  examples: ['2fa verify 123456'],
  args: z.object({ code: z.string() }),
  loginRequired: true,
  async run(ctx, { code }) {
    const outcome = await account.verifyTwoFactor(authDeps(ctx), code);
    if (!outcome.ok) return [failure(outcome.message)];
    return [
      success(outcome.message ?? ''),
      info('Recovery codes:'),
      ...(outcome.recoveryCodes ?? []).map((c) => info(`  ${c}`)),
      muted(RECOVERY_TEXT.store),
    ];
  },
});

export const twoFactorDisable = defineCommand({
  name: '2fa disable',
  area: AREA,
  summary: 'Turn two-factor login off (asks for the password).',
  usage: '2fa disable',
  examples: ['2fa disable'],
  args: z.object({}),
  loginRequired: true,
  async run(ctx) {
    const password = await askSecret(ctx, 'Password: ');
    if (password === null) return CANCELLED;
    return result(await account.disableTwoFactor(authDeps(ctx), password));
  },
});

export const devices = defineCommand({
  name: 'devices',
  area: AREA,
  summary: 'List the devices remembered for automatic login.',
  usage: 'devices',
  examples: ['devices'],
  args: z.object({}),
  loginRequired: true,
  async run(ctx) {
    const outcome = await account.loadDevices(authDeps(ctx));
    const state = ctx.stores.auth.devices.peek();
    if (!outcome.ok || state.status !== 'ready') return [failure(outcome.ok ? '' : outcome.message)];
    if (state.items.length === 0) return { lines: [muted('No remembered devices.')], data: [] };
    const lines = state.items.map((d) =>
      info(
        `${d.id.slice(0, 8)}  ${d.device_info.browser} on ${d.device_info.os}` +
          `${d.device_info.place === undefined ? '' : ` near ${d.device_info.place}`}  ` +
          `${d.device_fingerprint.slice(0, 8)}  last used ${utcStamp(d.last_used_at)}${d.is_current ? '  (this one)' : ''}`,
      ),
    );
    return { lines, data: state.items };
  },
});

export const devicesRm = defineCommand({
  name: 'devices rm',
  area: AREA,
  summary: 'Forget one remembered device (by the id `devices` shows, or its start).',
  usage: 'devices rm <id>',
  examples: ['devices rm 3f2a9c1d'],
  args: z.object({
    id: z
      .string()
      .min(4, { error: 'Give at least 4 characters of the id.' })
      .describe('the id `devices` shows'),
  }),
  complete: { id: deviceIds },
  loginRequired: true,
  async run(ctx, { id }) {
    const deps = authDeps(ctx);
    const loaded = await account.loadDevices(deps);
    const state = ctx.stores.auth.devices.peek();
    if (!loaded.ok || state.status !== 'ready') return [failure(loaded.ok ? '' : loaded.message)];
    const matches = state.items.filter((d) => d.id.startsWith(id.toLowerCase()));
    const [device] = matches;
    if (device === undefined) return [failure(`No device ${id}.`)];
    if (matches.length > 1) return [failure(`${id} matches several devices; give more of the id.`)];
    return result(await account.removeDevice(deps, device.id));
  },
});

export const devicesRevokeAll = defineCommand({
  name: 'devices revoke-all',
  area: AREA,
  summary: 'Forget every remembered device and end their sessions.',
  usage: 'devices revoke-all',
  options: [
    {
      flags: '--unlink-wallets',
      description: 'also unlink every wallet (and Google or Twitter account) and sign them out',
    },
  ],
  examples: ['devices revoke-all', 'devices revoke-all --unlink-wallets'],
  args: z.object({ unlinkWallets: z.boolean().optional() }),
  loginRequired: true,
  async run(ctx, { unlinkWallets }) {
    return result(await account.revokeAllDevices(authDeps(ctx), unlinkWallets === true));
  },
});

export const activity = defineCommand({
  name: 'activity',
  area: AREA,
  summary: 'What happened to your account: sign-ins, failed attempts, security changes, keys, plan.',
  usage: 'activity [count]',
  examples: ['activity', 'activity 100'],
  args: z.object({
    count: z.coerce
      .number({ error: 'Count must be a whole number from 1 to 200.' })
      .int({ error: 'Count must be a whole number from 1 to 200.' })
      .min(1, { error: 'Count must be a whole number from 1 to 200.' })
      .max(200, { error: 'Count must be a whole number from 1 to 200.' })
      .optional(),
  }),
  loginRequired: true,
  async run(ctx, { count }) {
    const outcome = await account.loadActivity(authDeps(ctx));
    const state = ctx.stores.auth.activity.peek();
    if (!outcome.ok || state.status !== 'ready') return [failure(outcome.ok ? '' : outcome.message)];
    if (state.items.length === 0) return { lines: [muted('No activity yet.')], data: [] };
    const shown = state.items.slice(0, count ?? 20);
    const lines = shown.map((e) => {
      const from = e.device === null ? '' : `  ${e.device}${e.place === null ? '' : ` near ${e.place}`}`;
      const line = `${utcStamp(e.at)}  ${e.text}${from}`;
      return e.kind === 'sign_in_failed' || e.kind === 'step_up_failed' ? failure(line) : info(line);
    });
    return { lines, data: shown };
  },
});

export default [
  twoFactorSetup,
  twoFactorVerify,
  twoFactorDisable,
  devices,
  devicesRm,
  devicesRevokeAll,
  activity,
];
