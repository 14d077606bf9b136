import { z } from 'zod';
import { KEY_TEXTS } from '../../contracts/exchanges';
import { loadDevices } from '../../services/auth/account';
import { addKey, describeKey, listKeys, removeKey } from '../../services/exchanges/keys';
import { ACCOUNT_TEXT, chooseAccount, fetchAccount } from '../../services/trading/account';
import type { AccountState } from '../../contracts/trading';
import { failure, info, muted, success, type OutputLine } from '../../services/terminal/output';
import { defineCommand, type CommandContext } from '../types';
import { CANCELLED, askSecret, authDeps } from './authShared';

const AREA = 'keys';

const confirmed = async (ctx: CommandContext, question: string): Promise<boolean> => {
  const answer = await ctx.stores.terminal.ask({ label: `${question} [y/N] `, secret: false });
  return answer !== null && /^y(es)?$/i.test(answer.trim());
};

export const keys = defineCommand({
  name: 'keys',
  area: AREA,
  summary: 'List your exchange API keys (hint, environment, status, permissions, warnings).',
  usage: 'keys',
  examples: ['keys', 'keys --open'],
  options: [{ flags: '--open', description: 'open the API Settings window as well' }],
  args: z.object({ open: z.boolean().optional() }),
  loginRequired: true,
  async run(ctx, { open }) {
    if (open === true) ctx.stores.ui.requestKeysWindow();
    const listed = await listKeys(ctx.api.main);
    if (!listed.ok) return [failure(listed.message)];
    if (listed.value.length === 0) return { lines: [muted(KEY_TEXTS.none)], data: [] };
    const lines: OutputLine[] = [];
    for (const k of listed.value) {
      const d = describeKey(k);
      lines.push(info(d.line));
      for (const w of d.warnings) lines.push(failure(`  ${w}`, 'failed'));
    }
    return { lines, data: listed.value };
  },
});

export const keyAdd = defineCommand({
  name: 'key add',
  area: AREA,
  summary: 'Save a Binance API key (asks for the key and the secret; the secret is not echoed).',
  usage: 'key add [environment]',
  examples: ['key add', 'key add demo'],
  args: z.object({ environment: z.enum(['live', 'demo']).optional().describe('live (default) or demo') }),
  loginRequired: true,
  async run(ctx, { environment }) {
    const apiKey = await ctx.stores.terminal.ask({ label: 'API Key: ', secret: false });
    if (apiKey === null) return CANCELLED;
    const secretKey = await askSecret(ctx, 'Secret Key: ');
    if (secretKey === null) return CANCELLED;
    const input = { apiKey, secretKey, environment: environment ?? 'live' } as const;
    let saved = await addKey(ctx.api.main, input);
    if (!saved.ok && saved.status === 409) {
      if (!(await confirmed(ctx, saved.message))) return CANCELLED;
      saved = await addKey(ctx.api.main, { ...input, confirmWithdrawals: true });
    }
    if (!saved.ok) return [failure(saved.message)];
    const d = describeKey(saved.value);
    const lines: OutputLine[] = [success(KEY_TEXTS.saved), info(d.line)];
    if (saved.value.status === 'unverified') lines.push(muted(KEY_TEXTS.unverified));
    for (const w of d.warnings) lines.push(failure(`  ${w}`, 'failed'));
    return { lines, data: saved.value };
  },
});

export const keyRm = defineCommand({
  name: 'key rm',
  area: AREA,
  summary: 'Delete one of your API keys (asks first).',
  usage: 'key rm <id>',
  examples: ['key rm 3f2a…'],
  args: z.object({ id: z.string().min(1).describe('the key id that `keys` shows') }),
  loginRequired: true,
  async run(ctx, { id }) {
    if (!(await confirmed(ctx, KEY_TEXTS.confirmDelete))) return CANCELLED;
    const removed = await removeKey(ctx.api.main, id);
    if (!removed.ok) return [failure(removed.message)];
    // The deleted key may have been the account orders go to: the server is back on paper for it.
    await fetchAccount(ctx.api.trading, ctx.stores.account);
    return [success(KEY_TEXTS.deleted)];
  },
});

const describeAccount = (a: AccountState): OutputLine[] =>
  a.mode === 'paper'
    ? [info(`Orders go to: ${ACCOUNT_TEXT.badge.paper} (the built-in paper exchange, no real funds).`)]
    : [
        info(
          `Orders go to: ${ACCOUNT_TEXT.badge[a.mode]} Binance USD-M, key ${a.keyHint ?? ''} (${a.account}).`,
        ),
        muted(
          a.mode === 'live'
            ? 'Real funds. The first order of each session asks first.'
            : 'Binance demo trading: simulated funds.',
        ),
      ];

export const account = defineCommand({
  name: 'account',
  area: AREA,
  summary:
    'Show where your orders go: PAPER, or one of your keys (LIVE or DEMO). Also opens the Account window.',
  usage: 'account',
  examples: ['account'],
  args: z.object({}),
  loginRequired: true,
  async run(ctx) {
    ctx.stores.ui.openAccountModal('devices');
    void loadDevices(authDeps(ctx));
    const got = await fetchAccount(ctx.api.trading, ctx.stores.account);
    if (!got.ok) return [failure(got.message)];
    return { lines: describeAccount(got.value), data: got.value };
  },
});

export const accountUse = defineCommand({
  name: 'account use',
  area: AREA,
  summary: 'Send your orders to the paper exchange or to one of your saved keys (remembered).',
  usage: 'account use <account>',
  examples: ['account use paper', 'account use 3f2a…'],
  args: z.object({ account: z.string().min(1).describe('paper, or a key id that `keys` shows') }),
  loginRequired: true,
  async run(ctx, { account: choice }) {
    const chosen = await chooseAccount(ctx.api.trading, ctx.stores.account, choice.trim());
    if (!chosen.ok) return [failure(chosen.message)];
    ctx.stores.positions.requestRefresh(true);
    return { lines: describeAccount(chosen.value), data: chosen.value };
  },
});

export default [keys, keyAdd, keyRm, account, accountUse];
