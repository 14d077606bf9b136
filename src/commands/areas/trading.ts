import { z } from 'zod';
import { sideOrder } from '../grammar/line';
import { formatAmount, parseOrderWords, type OrderParse } from '../grammar/order';
import { failure, info, muted, success, type OutputLine } from '../../services/terminal/output';
import { pnlStyle, sideStyle, table } from '../../services/terminal/table';
import { usdt } from '../../contracts/sizing';
import type { OrderResponse } from '../../contracts/trading';
import { TRADING_TEXT } from '../../services/trading/messages';
import { restingText } from '../../services/trading/openOrders';
import { capFor } from '../../services/trading/orderPreview';
import * as orders from '../../services/trading/orders';
import { POSITION_COLUMNS, positionRow } from '../../services/trading/positionsView';
import { protectionCellText, RECEIPT_MISSING, receiptLines } from '../../services/trading/protectionView';
import { fetchTrades, TRADE_COLUMNS, TRADES_TEXT, tradeRow } from '../../services/trading/trades';
import { orderWords, sideWords, tickerCompletion } from '../providers';
import { unwrap } from '../errors';
import { loginRefusal } from '../registry';
import { defineCommand, type CommandContext, type CommandOutput } from '../types';
import { CANCELLED, approveAtPrompt } from './authShared';
import { KnownTicker } from './market';
import { close, flip } from './positionVerbs';

const AREA = 'trading';

/** Yes to a `[y/N]` question: `y` or `yes`, any case; everything else (and Ctrl+C) is no. */
const confirmed = async (ctx: CommandContext, question: string): Promise<boolean> => {
  const answer = await ctx.stores.terminal.ask({ label: `${question} [y/N] `, secret: false });
  return answer !== null && /^y(es)?$/i.test(answer.trim());
};

/**
 * What the order's protection did, as its answer says: each leg's state and where it rests, how long
 * the position went without it, the note; a line saying the answer is silent when it says nothing.
 */
function protectionOutput(asked: boolean, fill: OrderResponse): OutputLine[] {
  if (fill.protection !== null) return receiptLines(fill.protection, fill.account.venue, fill.symbol);
  return asked ? [info(RECEIPT_MISSING)] : [];
}

/** Sends a parsed order line (the same path as the trade panel) and prints the fill. */
async function runOrder(ctx: CommandContext, parsed: OrderParse): Promise<OutputLine[] | CommandOutput> {
  if (!parsed.ok) return [failure(parsed.message, 'invalid-args')];
  // Not `loginRequired`: a mistyped order is answered before the login is asked for.
  const denied = loginRefusal(ctx);
  if (denied) return denied;
  const { order } = parsed;
  const cap = ctx.shell.preferences.fatFingerCap.peek();
  if (order.amount > cap) {
    const question =
      `${formatAmount(order.amount)} USDT is above your fat-finger cap of ${formatAmount(cap)} USDT. ` +
      `Place ${order.side} ${order.pair} for ${formatAmount(order.amount)} USDT?`;
    if (!(await confirmed(ctx, question))) return CANCELLED;
  }
  if (!(await approveAtPrompt(ctx))) return CANCELLED;
  const placed = await orders.placeOrder(ctx.api.trading, {
    pair: order.pair,
    side: order.side,
    amount: order.amount,
    // Within the cap, sizing to the nearest step never goes above it; above it, the user said yes.
    maxNotional: capFor(order.amount, cap),
    protection: order.protection,
    maxSlippagePct: order.maxSlippagePct,
    limit: order.limit,
  });
  if (!placed.ok) return [failure(`Error: ${placed.message}`)];
  ctx.stores.positions.requestRefresh();
  const fill = placed.value;
  if (fill.status === 'open') {
    void ctx.stores.openOrders.refresh(ctx.api.trading);
    const lines = [success(TRADING_TEXT.orderSucceeded(fill.id)), info(restingText(fill))];
    return { lines: fill.note === null ? lines : [...lines, muted(fill.note)], data: fill };
  }
  const lines = [
    success(TRADING_TEXT.orderSucceeded(fill.id)),
    info(TRADING_TEXT.filled(fill)),
    ...protectionOutput(order.protection !== undefined, fill),
    muted(TRADING_TEXT.venueNote(fill.account)),
  ];
  return { lines, data: fill };
}

const Words = z.object({
  words: z
    .array(z.string())
    .default([])
    .describe(
      '[asset] <long|short> <amount> [@ <price> [ioc|post]] [sl <% or price>] [tp <% or price>] [trail <%>] [exit <30m|2h|1d>], e.g. btc long 5k sl 2% tp 5%, btc long 5k @ 95000',
    ),
});

export const order = defineCommand({
  name: 'order',
  area: AREA,
  summary:
    'Place a market order: <asset> <side> <amount> (the asset may be left out, or typed alone), ' +
    'optionally protected: sl and tp as a % of the entry or a price, trail as a %, exit after a time. ' +
    'A price after @ makes it a limit order (GTC; ioc or post after the price): it rests until the market reaches it, ' +
    'then fills at that price with the maker fee.',
  usage: 'order [words...]',
  examples: [
    'btc long 5k',
    'btc long 500 sl 2% tp 5%',
    'btc long 5k @ 95000',
    'btc short 2k @ 101000 post',
    'eth long 1k @3.2k ioc',
    'eth short 250 sl 3500 trail 1% exit 2h',
    'order sol long 100',
  ],
  args: Words,
  complete: { words: orderWords },
  run(ctx, { words }) {
    return runOrder(ctx, parseOrderWords(words, ctx.stores.ui.ticker.peek()));
  },
});

const sideCommand = (side: 'long' | 'short', alias: 'buy' | 'sell') =>
  defineCommand({
    name: side,
    aliases: [alias],
    area: AREA,
    summary:
      `Go ${side} on the chosen symbol for a USDT total (k = thousands): opens or adds to a ${side}; ` +
      `against a ${side === 'long' ? 'short' : 'long'} it reduces, closes or flips it (the fill says which, with the realised PnL).`,
    usage: `${side} [amount...]`,
    examples: [
      `${side} 100`,
      `${side} 2.5k`,
      `${alias} 250`,
      `${side} 500 sl 2% tp 5%`,
      `${side} 1k @ ${side === 'long' ? '95000' : '101000'}`,
    ],
    args: z.object({
      amount: z
        .array(z.string())
        .default([])
        .describe(
          'USDT total, k = thousands (e.g. 2.5k), then @ <price> [ioc|post] for a limit order, or sl, tp, trail, exit if wanted',
        ),
    }),
    complete: { amount: sideWords },
    run(ctx, { amount }) {
      return runOrder(ctx, sideOrder(side, amount, ctx.stores.ui.ticker.peek()));
    },
  });

export const long = sideCommand('long', 'buy');
export const short = sideCommand('short', 'sell');

export const closeAll = defineCommand({
  name: 'close all',
  area: AREA,
  summary: 'Close every open position at market (asks first).',
  usage: 'close all',
  examples: ['close all'],
  args: z.object({}),
  loginRequired: true,
  async run(ctx) {
    const open = unwrap(await orders.fetchPositions(ctx.api.trading));
    if (open.length === 0) return [info(TRADING_TEXT.nothingToClose)];
    if (!(await confirmed(ctx, TRADING_TEXT.confirmCloseAll(open.length)))) return CANCELLED;
    const closed = unwrap(await orders.closeAllPositions(ctx.api.trading));
    ctx.stores.positions.requestRefresh();
    if (closed.fills.length === 0) return { lines: [success(closed.message)], data: closed };
    return { lines: orders.closedOutput(closed.fills), data: closed };
  },
});

export const positions = defineCommand({
  name: 'positions',
  aliases: ['pos'],
  area: AREA,
  summary:
    'List the open positions, each with its protection (stop loss, take profit, trailing stop, time exit).',
  usage: 'positions',
  examples: ['positions'],
  args: z.object({}),
  loginRequired: true,
  async run(ctx) {
    const open = unwrap(await orders.fetchPositions(ctx.api.trading));
    if (open.length === 0) return { lines: [muted(TRADING_TEXT.noPositions)], data: [] };
    const columns = [...POSITION_COLUMNS, 'PROTECTION'].map((header, i) => ({
      header,
      align: i < 2 || i > 7 ? ('left' as const) : ('right' as const),
    }));
    const venue = ctx.stores.account.venue.peek();
    const rows = open.map((p) => {
      const row = positionRow(p);
      const cells = row.cells.map((cell, i) => {
        const style = i === 1 ? sideStyle(row.side) : i === 7 ? pnlStyle(p.unrealizedPnl) : undefined;
        return style === undefined ? cell : { text: cell, style };
      });
      return [...cells, protectionCellText(p.protection, venue, null, p.symbol)];
    });
    return { lines: table(columns, rows), data: open };
  },
});

export const balance = defineCommand({
  name: 'balance',
  area: AREA,
  summary: 'Show the futures account: wallet balance, available margin, unrealized PnL, equity.',
  usage: 'balance',
  examples: ['balance'],
  args: z.object({}),
  loginRequired: true,
  async run(ctx) {
    const [answer, open] = await Promise.all([
      orders.fetchBalance(ctx.api.trading),
      orders.fetchPositions(ctx.api.trading),
    ]);
    const b = unwrap(answer);
    const rows: [string, string][] = [
      ['Wallet balance', `${usdt(b.walletBalance)} USDT`],
      ['Available', `${usdt(b.availableBalance)} USDT`],
      ['Unrealized PnL', unrealizedText(b.unrealizedPnl, open.ok ? open.value.length : null)],
      ['Equity', `${usdt(b.equity)} USDT`],
    ];
    const lines = [
      ...rows.map(([label, value]) => info(`${label.padEnd(15)} ${value}`)),
      muted(TRADING_TEXT.balanceSource(b.exchange)),
    ];
    return { lines, data: b };
  },
});

/**
 * `+12.50 USDT on 2 open positions`, or `no open positions`: one unit, always a number or a word (a
 * zero is 0.00, not a placeholder).
 */
export function unrealizedText(pnl: number, openPositions: number | null): string {
  if (openPositions === 0) return 'no open positions';
  const value = `${pnl > 0 ? '+' : ''}${usdt(pnl)} USDT`;
  if (openPositions === null) return value;
  return `${value} on ${openPositions} open position${openPositions === 1 ? '' : 's'}`;
}

const LeverageValue = z.coerce
  .number({ error: 'Leverage must be a number.' })
  .int({ error: 'Leverage must be a whole number.' })
  .min(1, { error: 'Leverage must be between 1 and 125.' })
  .max(125, { error: 'Leverage must be between 1 and 125.' });

export const leverage = defineCommand({
  name: 'leverage',
  aliases: ['lev'],
  area: AREA,
  summary: 'Set the leverage of a symbol (1-125, within its tier).',
  usage: 'leverage <asset> <n>',
  examples: ['leverage btc 20', 'leverage eth 5'],
  args: z.object({
    asset: KnownTicker.describe('a ticker such as btc'),
    n: LeverageValue.describe('1 to 125'),
  }),
  complete: { asset: tickerCompletion },
  loginRequired: true,
  async run(ctx, { asset, n }) {
    return [success(unwrap(await orders.setLeverage(ctx.api.trading, `${asset}/USDT`, n)))];
  },
});

export const paperReset = defineCommand({
  name: 'paper reset',
  area: AREA,
  summary: 'Start the paper account over: 10,000 USDT and no positions (asks first).',
  usage: 'paper reset',
  examples: ['paper reset'],
  args: z.object({}),
  loginRequired: true,
  async run(ctx) {
    const question = 'Reset the paper account to 10,000 USDT and close every position?';
    if (!(await confirmed(ctx, question))) return CANCELLED;
    const answer = await orders.resetPaperAccount(ctx.api.trading);
    ctx.stores.positions.requestRefresh();
    return [success(unwrap(answer))];
  },
});

const TradesLimit = z.coerce
  .number({ error: 'The count is a whole number from 1 to 200.' })
  .int({ error: 'The count is a whole number from 1 to 200.' })
  .min(1, { error: 'The count is a whole number from 1 to 200.' })
  .max(200, { error: 'The count is a whole number from 1 to 200.' });

export const tradesCommand = defineCommand({
  name: 'trades',
  area: AREA,
  summary:
    'List your fills, newest first: time, symbol, side, size, price, realised PnL, fee, venue and what placed it.',
  usage: 'trades',
  examples: ['trades', 'trades -n 50', 'trades --account paper'],
  options: [
    { flags: '-n, --limit <count>', description: 'how many to print (default 20)' },
    { flags: '--account <account>', description: 'only this account: paper, or a key id that `keys` shows' },
    { flags: '--before <cursor>', description: 'the older page a listing names at its end' },
  ],
  args: z.object({
    limit: TradesLimit.default(20),
    account: z.string().trim().min(1).optional(),
    before: z
      .string()
      .regex(/^\d+$/, { error: 'The cursor is the number a listing names at its end.' })
      .optional(),
  }),
  loginRequired: true,
  async run(ctx, args) {
    const page = unwrap(
      await fetchTrades(ctx.api.trading, {
        limit: args.limit,
        ...(args.before === undefined ? {} : { cursor: args.before }),
        ...(args.account === undefined ? {} : { account: args.account }),
      }),
    );
    if (page.trades.length === 0) return { lines: [muted(TRADES_TEXT.none)], data: page };
    const columns = TRADE_COLUMNS.map((header) => ({
      header,
      align: ['QTY', 'PRICE', 'REALISED PNL', 'FEE'].includes(header)
        ? ('right' as const)
        : ('left' as const),
    }));
    const rows = page.trades.map((trade) => {
      const row = tradeRow(trade);
      return row.cells.map((cell, i) => {
        const style = i === 2 ? sideStyle(row.side) : i === 5 ? pnlStyle(trade.realizedPnl) : undefined;
        return style === undefined ? cell : { text: cell, style };
      });
    });
    const lines = table(columns, rows);
    if (page.nextCursor !== null) lines.push(muted(TRADES_TEXT.more(page.nextCursor)));
    return { lines, data: page };
  },
});

export default [
  order,
  long,
  short,
  close,
  flip,
  closeAll,
  positions,
  tradesCommand,
  balance,
  leverage,
  paperReset,
];
