import { z } from 'zod';
import { usdt } from '../../contracts/sizing';
import { failure, info, muted, success, type OutputLine } from '../../services/terminal/output';
import { TRADING_TEXT } from '../../services/trading/messages';
import { capFor } from '../../services/trading/orderPreview';
import * as orders from '../../services/trading/orders';
import { parseShare, positionTarget } from '../../services/trading/positionVerbs';
import { openPositionTickers } from '../providers';
import { unwrap } from '../errors';
import { defineCommand, type CommandContext, type CommandOutput } from '../types';
import { CANCELLED, approveAtPrompt, confirmedAtPrompt } from './authShared';
import { KnownTicker } from './market';

const AREA = 'trading';

/** `close btc 50%`, `close btc 1/3`: a reduce-only order of that share, on the step. */
async function closeShareOf(
  ctx: CommandContext,
  pair: string,
  text: string,
): Promise<OutputLine[] | CommandOutput> {
  const parsed = parseShare(text);
  if (!parsed.ok) return [failure(parsed.message, 'invalid-args')];
  const answer =
    parsed.share === 1
      ? await orders.closePosition(ctx.api.trading, pair)
      : await orders.closeShare(ctx.api.trading, pair, parsed.share);
  const closed = unwrap(answer);
  ctx.stores.positions.requestRefresh();
  return { lines: orders.closedOutput([closed.fill]), data: closed };
}

export const close = defineCommand({
  name: 'close',
  area: AREA,
  summary:
    'Close the open position of an asset at market, or a share of it (50%, 1/3): a reduce-only order ' +
    'rounded down to the step, refused when that is below the smallest order.',
  usage: 'close <asset> [share]',
  examples: ['close btc', 'close btc 50%', 'close eth 1/3', 'close all'],
  args: z.object({
    asset: KnownTicker.describe('a ticker such as btc'),
    share: z
      .string()
      .optional()
      .describe('a percent (50%) or a fraction (1/3); the whole position by default'),
  }),
  complete: { asset: openPositionTickers },
  loginRequired: true,
  async run(ctx, { asset, share }) {
    const pair = `${asset}/USDT`;
    if (share !== undefined) return closeShareOf(ctx, pair, share);
    const closed = unwrap(await orders.closePosition(ctx.api.trading, pair));
    ctx.stores.positions.requestRefresh();
    return { lines: orders.closedOutput([closed.fill]), data: closed };
  },
});

/** What a flip says when its close went through and its opening did not: flat, never doubled. */
export const notReopened = (pair: string, side: 'long' | 'short', why: string): string =>
  `The ${side} was not opened: ${why} You are flat on ${pair}; nothing was doubled.`;

export const flip = defineCommand({
  name: 'flip',
  area: AREA,
  summary:
    'Turn a position the other way at market, the same size: it is closed first (reduce-only), then the ' +
    'opposite order is sent. Two orders, so a failure between them leaves you flat, never doubled.',
  usage: 'flip <asset>',
  examples: ['flip btc', 'flip eth'],
  args: z.object({ asset: KnownTicker.describe('a ticker such as btc') }),
  complete: { asset: openPositionTickers },
  loginRequired: true,
  async run(ctx, { asset }) {
    const pair = `${asset}/USDT`;
    const open = unwrap(await orders.fetchPositions(ctx.api.trading)).find((p) => p.symbol === pair);
    if (open === undefined) return [failure(`No open ${pair} position.`)];
    const side = open.side === 'long' ? 'short' : 'long';
    const amount = Math.round(Math.abs(open.notional) * 100) / 100;
    const cap = ctx.shell.preferences.fatFingerCap.peek();
    if (amount > cap) {
      const question =
        `Flipping ${positionTarget(open)} opens ${usdt(amount)} USDT, above your fat-finger cap of ` +
        `${usdt(cap)} USDT. Flip it?`;
      if (!(await confirmedAtPrompt(ctx, question))) return CANCELLED;
    }
    if (!(await approveAtPrompt(ctx))) return CANCELLED;
    const closed = unwrap(await orders.closePosition(ctx.api.trading, pair));
    ctx.stores.positions.requestRefresh();
    const lines = orders.closedOutput([closed.fill]);
    // The opening is worth what the close sold, so it is the same size on the step.
    const notional = closed.fill.notional > 0 ? closed.fill.notional : amount;
    const placed = await orders.placeOrder(ctx.api.trading, {
      pair,
      side,
      amount: notional,
      maxNotional: capFor(notional, cap),
    });
    if (!placed.ok)
      return { lines: [...lines, failure(notReopened(pair, side, placed.message))], data: closed };
    ctx.stores.positions.requestRefresh();
    const fill = placed.value;
    return {
      lines: [
        ...lines,
        success(TRADING_TEXT.orderSucceeded(fill.id)),
        info(TRADING_TEXT.filled(fill)),
        muted(TRADING_TEXT.venueNote(fill.account)),
      ],
      data: { closed, opened: fill },
    };
  },
});

export default [close, flip];
