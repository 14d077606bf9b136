import { INTERVALS } from '../contracts/market';
import { SYMBOLS } from '../contracts/symbols';
import { formatAmount } from './grammar/order';
import type { CompletionProvider } from './types';

/**
 * Completion providers the areas declare on their commands' arguments. Each answers every candidate;
 * the completion engine keeps the ones that start with what was typed.
 */

/** The supported symbols' tickers, as typed (`btc`). */
export const tickers = (): string[] => SYMBOLS.map((s) => s.ticker.toLowerCase());

export const tickerCompletion: CompletionProvider = () => tickers();

export const intervalCompletion: CompletionProvider = () => [...INTERVALS];

export const SIDE_WORDS = ['long', 'short'] as const;

/** docs/product.md §3: the quick-trade amounts kept in the browser (`quickTradeAmounts`), as typed (`5k`). */
export const savedAmounts: CompletionProvider = ({ stores }) =>
  stores.quickAmounts.amounts.peek().map(formatAmount);

/** `order` words: a ticker, then a side, then an amount. */
export const orderWords: CompletionProvider = (ctx) => {
  if (ctx.before.length === 0) return tickers();
  if (ctx.before.length === 1) return [...SIDE_WORDS];
  return ctx.before.length === 2 ? savedAmounts(ctx) : [];
};

/** The tickers of the open positions (`close <Tab>` offers only what can be closed). */
export const openPositionTickers: CompletionProvider = ({ stores }) =>
  stores.positions.positions.peek().map((p) => (p.symbol.split('/')[0] ?? '').toLowerCase());

/** The first 8 characters of each remembered device the `devices` command listed. */
export const deviceIds: CompletionProvider = ({ stores }) => {
  const state = stores.auth.devices.peek();
  return state.status === 'ready' ? state.items.map((d) => d.id.slice(0, 8)) : [];
};

/** The user's alias names. */
export const aliasNames: CompletionProvider = ({ shell }) => Object.keys(shell.aliases.all.peek()).sort();

/** Command names, for `help <command>`. */
export const commandNames: CompletionProvider = ({ registry }) => registry.list().map((c) => c.name);
