import { z } from 'zod';
import { findTicker } from '../../contracts/symbols';
import type { OpenOrder } from '../../contracts/trading';
import { failure, info, muted, success, type OutputLine } from '../../services/terminal/output';
import { sideStyle, table } from '../../services/terminal/table';
import {
  cancelledLines,
  cancelOpenOrder,
  cancelOpenOrders,
  fetchOpenOrders,
  OPEN_ORDER_COLUMNS,
  OPEN_ORDERS_TEXT,
  openOrderCells,
} from '../../services/trading/openOrders';
import { unwrap } from '../errors';
import type { CompletionProvider } from '../types';
import { defineCommand, type CommandContext } from '../types';

const AREA = 'trading';

/** After `cx`: the tickers of the resting orders, their ids, and `all`. */
const cancelTargets: CompletionProvider = ({ stores }) => {
  const open = stores.openOrders.orders.peek();
  const tickers = new Set(open.map((o) => (o.symbol.split('/')[0] ?? '').toLowerCase()));
  return ['all', ...tickers, ...open.map((o) => o.id.slice(0, 8))];
};

export const ordersCommand = defineCommand({
  name: 'orders',
  area: AREA,
  summary:
    'List the limit orders resting on the account: id, symbol, side, price, quantity, filled, time in force, age.',
  usage: 'orders',
  examples: ['orders'],
  args: z.object({}),
  loginRequired: true,
  async run(ctx) {
    const open = unwrap(await fetchOpenOrders(ctx.api.trading));
    ctx.stores.openOrders.setOrders(open);
    if (open.length === 0) return { lines: [muted(OPEN_ORDERS_TEXT.none)], data: [] };
    const columns = OPEN_ORDER_COLUMNS.map((header) => ({
      header,
      align: ['PRICE', 'QTY', 'FILLED', 'AGE'].includes(header) ? ('right' as const) : ('left' as const),
    }));
    const now = Date.now();
    const rows = open.map((o) =>
      openOrderCells(o, now).map((cell, i) => (i === 2 ? { text: cell, style: sideStyle(o.side) } : cell)),
    );
    return { lines: table(columns, rows), data: open };
  },
});

/** The orders an id (or the first characters of one, as `orders` shows it) names. */
function byId(open: readonly OpenOrder[], id: string): OpenOrder[] {
  const exact = open.filter((o) => o.id === id || o.clientOrderId === id);
  return exact.length > 0 ? exact : open.filter((o) => o.id.startsWith(id));
}

async function cancelOne(ctx: CommandContext, target: string): Promise<OutputLine[]> {
  const open = unwrap(await fetchOpenOrders(ctx.api.trading));
  const matches = byId(open, target);
  if (matches.length > 1) {
    return [failure(`'${target}' names ${matches.length} open orders: type more of the id.`, 'invalid-args')];
  }
  const cancelled = unwrap(await cancelOpenOrder(ctx.api.trading, matches[0]?.id ?? target));
  return [success(OPEN_ORDERS_TEXT.cancelled(cancelled))];
}

export const cancelCommand = defineCommand({
  name: 'cx',
  area: AREA,
  summary:
    "Cancel resting limit orders: an asset's (cx btc), all of them (cx all), or one by the id `orders` shows.",
  usage: 'cx <target>',
  examples: ['cx btc', 'cx all', 'cx 3f9a1c2e'],
  args: z.object({
    target: z
      .string({ error: 'Say what to cancel: an asset (btc), all, or an order id.' })
      .trim()
      .min(1, { error: 'Say what to cancel: an asset (btc), all, or an order id.' })
      .describe('an asset such as btc, all, or an order id'),
  }),
  complete: { target: cancelTargets },
  loginRequired: true,
  async run(ctx, { target }) {
    const word = target.toLowerCase();
    const ticker = word === 'all' ? undefined : findTicker(word);
    const lines =
      word !== 'all' && ticker === undefined
        ? await cancelOne(ctx, target)
        : await cancelMany(ctx, ticker?.pair);
    void ctx.stores.openOrders.refresh(ctx.api.trading);
    return lines;
  },
});

async function cancelMany(ctx: CommandContext, pair: string | undefined): Promise<OutputLine[]> {
  const answer = unwrap(await cancelOpenOrders(ctx.api.trading, pair));
  if (answer.cancelled.length === 0 && answer.failed.length === 0) {
    return [info(OPEN_ORDERS_TEXT.noneToCancel(pair ?? ''))];
  }
  const { ok, failed } = cancelledLines(answer);
  return [
    ...ok.map((line) => success(line)),
    ...(ok.length > 1 ? [muted(OPEN_ORDERS_TEXT.cancelledMany(ok.length))] : []),
    ...failed.map((line) => failure(line)),
  ];
}

export default [ordersCommand, cancelCommand];
