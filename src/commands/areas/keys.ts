import { z } from 'zod';
import { KEY_ENVIRONMENTS, KEY_TEXTS, type KeyEnvironment } from '../../contracts/exchanges';
import { VENUES, VENUE_KEY_FORMS, venueLabel, type VenueName } from '../../contracts/venues';
import { loadDevices } from '../../services/auth/account';
import { addKey, describeKey, listKeys, removeKey } from '../../services/exchanges/keys';
import { ACCOUNT_TEXT, chooseAccount, fetchAccount } from '../../services/trading/account';
import { VENUE_MARKETS } from '../../services/trading/venueNames';
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
  summary: 'List your exchange API keys (venue, environment, hint, status, permissions, warnings).',
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

/** Why the key and the secret are never words of the command: the line is kept in the history. */
const ASKED_NEXT = 'The key and the secret are asked for next, so they stay out of the history.';

const isVenue = (word: string): word is VenueName => (VENUES as readonly string[]).includes(word);
const isEnvironment = (word: string): word is KeyEnvironment =>
  (KEY_ENVIRONMENTS as readonly string[]).includes(word);

export type KeyTarget =
  { ok: true; venue: VenueName; environment: KeyEnvironment } | { ok: false; message: string };

/**
 * The venue and environment `key add` was given: up to two words in either order (`bybit demo`, `demo`,
 * `okx`) and `--venue`; Binance and demo when left out: a key trades real funds only when `live` is typed. The key, the secret and OKX's passphrase are
 * only ever asked (without echo for the secrets): a line is kept in the history, a secret must not be.
 */
export function keyTarget(args: {
  exchange?: string | undefined;
  environment?: string | undefined;
  venue?: string | undefined;
}): KeyTarget {
  const venues: VenueName[] = [];
  const environments: KeyEnvironment[] = [];
  for (const raw of [args.exchange, args.environment]) {
    if (raw === undefined) continue;
    const word = raw.trim().toLowerCase();
    if (isVenue(word)) venues.push(word);
    else if (isEnvironment(word)) environments.push(word);
    else {
      return {
        ok: false,
        message: `'${raw}' is neither a venue (${VENUES.join(', ')}) nor an environment (live, demo). ${ASKED_NEXT}`,
      };
    }
  }
  if (args.venue !== undefined) {
    const word = args.venue.trim().toLowerCase();
    if (!isVenue(word)) return { ok: false, message: `--venue must be one of ${VENUES.join(', ')}.` };
    venues.push(word);
  }
  if (new Set(venues).size > 1) return { ok: false, message: `One venue, please: ${venues.join(' or ')}?` };
  if (new Set(environments).size > 1) return { ok: false, message: 'One environment, please: live or demo?' };
  return { ok: true, venue: venues[0] ?? 'binance', environment: environments[0] ?? 'demo' };
}

const TARGET_WORDS: readonly string[] = [...VENUES, ...KEY_ENVIRONMENTS];

const KeyAddArgs = z
  .object({
    exchange: z
      .string()
      .optional()
      .describe('binance (default), bybit or okx, before or after the environment'),
    environment: z.string().optional().describe('demo (default) or live (real funds)'),
    venue: z.string().optional(),
  })
  .superRefine((args, ctx) => {
    const target = keyTarget(args);
    if (!target.ok) ctx.addIssue({ code: 'custom', message: target.message });
  });

/** What the saved key trades with, in plain words: real funds for live, simulated funds otherwise. */
const environmentNote = (target: { venue: VenueName; environment: KeyEnvironment }): OutputLine =>
  target.environment === 'live'
    ? info(KEY_TEXTS.liveWarning(target.venue))
    : muted(KEY_TEXTS.demoNote(target.venue));

export const keyAdd = defineCommand({
  name: 'key add',
  aliases: ['keys add'],
  area: AREA,
  summary:
    'Save an API key for Binance, Bybit or OKX, demo unless you type live (asks for the key, the secret and, on OKX, the passphrase; secrets are not echoed).',
  usage: 'key add [exchange] [environment]',
  examples: ['key add', 'key add bybit live', 'key add okx', 'key add --venue bybit'],
  options: [
    {
      flags: '--venue <venue>',
      description: 'the venue the key was made on: binance (default), bybit or okx',
    },
  ],
  args: KeyAddArgs,
  complete: { exchange: () => TARGET_WORDS, environment: () => TARGET_WORDS },
  loginRequired: true,
  async run(ctx, args) {
    const target = keyTarget(args);
    if (!target.ok) return [failure(target.message, 'invalid-args')];
    const { venue, environment } = target;
    const label = environment === 'live' ? 'API Key (LIVE, trades real funds): ' : 'API Key: ';
    const apiKey = await ctx.stores.terminal.ask({ label, secret: false });
    if (apiKey === null) return CANCELLED;
    const secretKey = await askSecret(ctx, 'Secret Key: ');
    if (secretKey === null) return CANCELLED;
    let passphrase: string | undefined;
    if (VENUE_KEY_FORMS[venue].passphrase) {
      const asked = await askSecret(ctx, 'Passphrase: ');
      if (asked === null) return CANCELLED;
      passphrase = asked;
    }
    const input = {
      exchangeName: venue,
      apiKey,
      secretKey,
      environment,
      ...(passphrase === undefined ? {} : { passphrase }),
    } as const;
    let saved = await addKey(ctx.api.main, input);
    if (!saved.ok && saved.status === 409) {
      if (!(await confirmed(ctx, saved.message))) return CANCELLED;
      saved = await addKey(ctx.api.main, { ...input, confirmWithdrawals: true });
    }
    if (!saved.ok) return [failure(saved.message)];
    const d = describeKey(saved.value);
    const lines: OutputLine[] = [success(KEY_TEXTS.saved), info(d.line), environmentNote(target)];
    if (saved.value.status === 'unverified')
      lines.push(muted(KEY_TEXTS.unverified(saved.value.exchangeName)));
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

/** Where orders go, naming the key's venue: `Orders go to: LIVE Bybit USDT perpetuals (linear), key …`. */
const describeAccount = (a: AccountState): OutputLine[] =>
  a.venue === 'paper' || a.mode === 'paper'
    ? [info(`Orders go to: ${ACCOUNT_TEXT.badge.paper} (the built-in paper exchange, no real funds).`)]
    : [
        info(
          `Orders go to: ${ACCOUNT_TEXT.badge[a.mode]} ${VENUE_MARKETS[a.venue]}, key ${a.keyHint ?? ''} (${a.account}).`,
        ),
        muted(
          a.mode === 'live'
            ? 'Real funds. The first order of each session asks first.'
            : `${venueLabel(a.venue)} demo trading: simulated funds.`,
        ),
      ];

export const account = defineCommand({
  name: 'account',
  area: AREA,
  summary:
    'Show where your orders go: PAPER, or one of your keys (its venue, LIVE or DEMO). Also opens the Account window.',
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
