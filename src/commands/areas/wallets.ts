import { z } from 'zod';
import { WALLET_CHAIN_NAMES, shortAddress } from '../../contracts/web3';
import * as wallet from '../../services/auth/wallet';
import { failure, info, muted, success, type OutputLine } from '../../services/terminal/output';
import { defineCommand } from '../types';
import { authDeps, finishLogin } from './authShared';

const AREA = 'account';

const result = (outcome: { ok: boolean; message?: string }): OutputLine[] =>
  outcome.ok ? [success(outcome.message ?? 'Done.')] : [failure(outcome.message ?? '')];

export const loginWallet = defineCommand({
  name: 'login wallet',
  area: AREA,
  summary: "Log in by signing a message with this browser's wallet (asks for the 2FA code when it is on).",
  usage: 'login wallet',
  options: [{ flags: '-r, --remember', description: 'remember this device for 30 days' }],
  examples: ['login wallet', 'login wallet --remember'],
  args: z.object({ remember: z.boolean().optional() }),
  async run(ctx, { remember }) {
    const outcome = await wallet.walletLogin(authDeps(ctx), wallet.injectedSigner(), remember === true);
    return finishLogin(ctx, outcome, 'wallet');
  },
});

export const wallets = defineCommand({
  name: 'wallets',
  area: AREA,
  summary: 'List the wallets linked to your account (the primary one is marked).',
  usage: 'wallets',
  examples: ['wallets'],
  args: z.object({}),
  loginRequired: true,
  async run(ctx) {
    const outcome = await wallet.loadWallets(authDeps(ctx));
    const state = ctx.stores.auth.wallets.peek();
    if (!outcome.ok || state.status !== 'ready') return [failure(outcome.ok ? '' : outcome.message)];
    if (state.items.length === 0) return { lines: [muted('No linked wallets.')], data: [] };
    const lines = state.items.map((w) =>
      info(
        `${w.id.slice(0, 8)}  ${shortAddress(w.address)}  ${WALLET_CHAIN_NAMES[w.chain_id] ?? `chain ${w.chain_id}`}` +
          `${w.ens_name === null ? '' : `  ${w.ens_name}`}${w.is_primary ? '  (primary)' : ''}`,
      ),
    );
    return { lines, data: state.items };
  },
});

export const walletLink = defineCommand({
  name: 'wallet link',
  area: AREA,
  summary: "Link this browser's wallet to your account (the wallet signs a message).",
  usage: 'wallet link',
  examples: ['wallet link'],
  args: z.object({}),
  loginRequired: true,
  async run(ctx) {
    return result(await wallet.linkWallet(authDeps(ctx), wallet.injectedSigner()));
  },
});

export const walletRm = defineCommand({
  name: 'wallet rm',
  area: AREA,
  summary: 'Unlink a wallet (by the id `wallets` shows, or its start); your last way to sign in stays.',
  usage: 'wallet rm <id>',
  examples: ['wallet rm 3f2a9c1d'],
  args: z.object({
    id: z
      .string()
      .min(4, { error: 'Give at least 4 characters of the id.' })
      .describe('the id `wallets` shows'),
  }),
  loginRequired: true,
  async run(ctx, { id }) {
    const deps = authDeps(ctx);
    const loaded = await wallet.loadWallets(deps);
    const state = ctx.stores.auth.wallets.peek();
    if (!loaded.ok || state.status !== 'ready') return [failure(loaded.ok ? '' : loaded.message)];
    const matches = state.items.filter((w) => w.id.startsWith(id.toLowerCase()));
    const [found] = matches;
    if (found === undefined) return [failure(`No wallet ${id}.`)];
    if (matches.length > 1) return [failure(`${id} matches several wallets; give more of the id.`)];
    return result(await wallet.unlinkWallet(deps, found.id));
  },
});

export default [loginWallet, wallets, walletLink, walletRm];
