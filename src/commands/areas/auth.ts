import { z } from 'zod';
import * as flows from '../../services/auth/flows';
import { endSession } from '../../services/auth/session';
import { failure, info, muted, success, type OutputLine } from '../../services/terminal/output';
import { defineCommand } from '../types';
import { CANCELLED, askSecret, authDeps, finishLogin } from './authShared';

const AREA = 'account';

export const signup = defineCommand({
  name: 'signup',
  area: AREA,
  summary: 'Create an account (asks for the password).',
  usage: 'signup <email> <username>',
  examples: ['signup ann@example.com ann'],
  args: z.object({ email: z.string(), username: z.string() }),
  async run(ctx, { email, username }) {
    const password = await askSecret(ctx, 'Password: ');
    if (password === null) return CANCELLED;
    const confirm = await askSecret(ctx, 'Confirm password: ');
    if (confirm === null) return CANCELLED;
    if (password !== confirm) return [failure('Passwords do not match.')];
    const outcome = await flows.signup(authDeps(ctx), { email, username, password });
    if (!outcome.ok) return [failure(outcome.message)];
    return [success(outcome.message ?? ''), muted(`Log in with: login ${username}`)];
  },
});

export const login = defineCommand({
  name: 'login',
  area: AREA,
  summary: 'Log in (asks for the password, then the 2FA code when it is on).',
  usage: 'login <username>',
  options: [{ flags: '-r, --remember', description: 'remember this device for 30 days' }],
  examples: ['login ann', 'login ann@example.com --remember'],
  args: z.object({ username: z.string(), remember: z.boolean().optional() }),
  async run(ctx, { username, remember }) {
    const deps = authDeps(ctx);
    const password = await askSecret(ctx, 'Password: ');
    if (password === null) return CANCELLED;
    const outcome = await flows.passwordLogin(deps, { username, password, rememberMe: remember === true });
    return finishLogin(ctx, outcome, username);
  },
});

export const logout = defineCommand({
  name: 'logout',
  area: AREA,
  summary: 'Log out of this browser.',
  usage: 'logout',
  examples: ['logout'],
  args: z.object({}),
  loginRequired: true,
  async run(ctx) {
    await endSession(ctx.api.main, ctx.stores);
    ctx.stores.ui.closeAccountModal();
    return [success('Logged out.')];
  },
});

export const whoami = defineCommand({
  name: 'whoami',
  area: AREA,
  summary: 'Show who is logged in.',
  usage: 'whoami',
  examples: ['whoami'],
  args: z.object({}),
  loginRequired: true,
  run(ctx) {
    const user = ctx.stores.session.user.peek();
    if (user === null) return [info('Logged in.')];
    const lines: OutputLine[] = [
      info(`${user.username}${user.email === undefined ? '' : ` <${user.email}>`}`),
    ];
    lines.push(muted(`role: ${user.role}`));
    lines.push(muted(`subscription: ${user.subscriptionStatus ?? 'none'}`));
    lines.push(muted(`two-factor login: ${user.isTwoFactorEnabled === true ? 'on' : 'off'}`));
    return { lines, data: user };
  },
});

export const passwd = defineCommand({
  name: 'passwd',
  area: AREA,
  summary: 'Change your password (ends your other sessions).',
  usage: 'passwd',
  options: [
    {
      flags: '--unlink-wallets',
      description: 'also unlink every wallet (and Google or Twitter account) and sign them out',
    },
  ],
  examples: ['passwd', 'passwd --unlink-wallets'],
  args: z.object({ unlinkWallets: z.boolean().optional() }),
  loginRequired: true,
  async run(ctx, { unlinkWallets }) {
    const current = await askSecret(ctx, 'Current password: ');
    if (current === null) return CANCELLED;
    const next = await askSecret(ctx, 'New password: ');
    if (next === null) return CANCELLED;
    const confirm = await askSecret(ctx, 'Confirm new password: ');
    if (confirm === null) return CANCELLED;
    const outcome = await flows.changePassword(authDeps(ctx), {
      current,
      next,
      confirm,
      unlinkWallets: unlinkWallets === true,
    });
    return outcome.ok ? [success(outcome.message ?? '')] : [failure(outcome.message)];
  },
});

export default [signup, login, logout, whoami, passwd];
