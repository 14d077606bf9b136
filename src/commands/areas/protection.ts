import { z } from 'zod';
import { failure, success } from '../../services/terminal/output';
import { moveStopToBreakEven, removeProtection, setProtection } from '../../services/trading/protection';
import { hasLegs, receiptLines } from '../../services/trading/protectionView';
import { unwrap } from '../errors';
import { parseProtectCommand } from '../grammar/protection';
import { openPositionTickers, protectWords } from '../providers';
import { loginRefusal } from '../registry';
import { defineCommand } from '../types';
import { KnownTicker } from './market';

/**
 * An open position's protection from the prompt (and the CLI): `protect btc sl 2% tp 6%` sets it,
 * replacing what it had, `protect btc off` removes it, `be btc` moves its stop to break-even. Each
 * prints the server's answer: every leg's state and where it rests (the answer's `message` spells the
 * same legs, so the legs are printed instead of it), the unprotected gap and the note. Listed with the
 * trading commands.
 */

const AREA = 'trading';

const Asset = KnownTicker.describe('a ticker such as btc');

export const protect = defineCommand({
  name: 'protect',
  area: AREA,
  summary:
    "Set an open position's protection, replacing what it had: sl and tp as a % of the entry or a price, " +
    'trail as a %, exit after a time (30m, 2h, 1d); `off` removes it. Prints each leg and where it rests.',
  usage: 'protect <asset> [words...]',
  examples: ['protect btc sl 2% tp 6%', 'protect eth sl 3500 trail 1% exit 2h', 'protect btc off'],
  args: z.object({
    asset: Asset,
    words: z
      .array(z.string())
      .default([])
      .describe('sl <% or price>, tp <% or price>, trail <%>, exit <30m|2h|1d>, or off'),
  }),
  complete: { asset: openPositionTickers, words: protectWords },
  async run(ctx, { asset, words }) {
    const parsed = parseProtectCommand(words);
    if (!parsed.ok) return [failure(parsed.message, 'invalid-args')];
    // Like an order: a mistyped line is answered before the login is asked for.
    const denied = loginRefusal(ctx);
    if (denied) return denied;
    const pair = `${asset}/USDT`;
    const venue = ctx.stores.account.venue.peek();
    if (parsed.off) {
      const removed = unwrap(await removeProtection(ctx.api.trading, pair));
      ctx.stores.positions.requestRefresh();
      const left = { ...removed.protection, unprotected_ms: null, note: null };
      // A leg the venue would not cancel is still there: say so, as the answer does.
      const rest = hasLegs(left) ? receiptLines(left, venue, pair) : [];
      return { lines: [success(removed.message), ...rest], data: removed };
    }
    const set = unwrap(await setProtection(ctx.api.trading, pair, parsed.protection));
    ctx.stores.positions.requestRefresh();
    // The answer's message spells the same legs; they are printed once, in the terminal's words.
    return { lines: receiptLines(set.protection, venue, pair), data: set };
  },
});

export const breakEven = defineCommand({
  name: 'be',
  aliases: ['breakeven'],
  area: AREA,
  summary: "Move an open position's stop to its break-even price, keeping its other legs.",
  usage: 'be <asset>',
  examples: ['be btc', 'breakeven eth'],
  args: z.object({ asset: Asset }),
  complete: { asset: openPositionTickers },
  loginRequired: true,
  async run(ctx, { asset }) {
    const moved = unwrap(await moveStopToBreakEven(ctx.api.trading, `${asset}/USDT`));
    ctx.stores.positions.requestRefresh();
    const venue = ctx.stores.account.venue.peek();
    return { lines: receiptLines(moved.protection, venue, `${asset}/USDT`), data: moved };
  },
});

export default [protect, breakEven];
