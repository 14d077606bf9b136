import { INTERVALS } from '../contracts/market';
import { SYMBOLS } from '../contracts/symbols';
import { formatAmount, isSide } from './grammar/order';
import { PROTECTION_KEYWORDS, PROTECTION_OFF } from './grammar/protection';
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

/**
 * The protection keywords not used yet, where a keyword may come: `legs` are the words after the
 * amount (or the asset), keyword and value in turn.
 */
const protectionKeywords = (legs: readonly string[]): string[] => {
  if (legs.length % 2 === 1) return [];
  const used = new Set(legs.filter((_, i) => i % 2 === 0).map((w) => w.toLowerCase()));
  return PROTECTION_KEYWORDS.filter((k) => !used.has(k));
};

/** `order` words: a ticker, then a side, then an amount, then protection (`sl`, `tp`, `trail`, `exit`). */
export const orderWords: CompletionProvider = (ctx) => {
  const [first] = ctx.before;
  if (first === undefined) return tickers();
  // `order long 500 …` names no asset.
  const base = isSide(first) ? 1 : 2;
  if (ctx.before.length < base) return [...SIDE_WORDS];
  if (ctx.before.length === base) return savedAmounts(ctx);
  return protectionKeywords(ctx.before.slice(base + 1));
};

/** After a side command: an amount, then protection. */
export const sideWords: CompletionProvider = (ctx) =>
  ctx.before.length === 0 ? savedAmounts(ctx) : protectionKeywords(ctx.before.slice(1));

/** After `protect <asset>`: the protection keywords, or `off` first. */
export const protectWords: CompletionProvider = (ctx) => [
  ...protectionKeywords(ctx.before),
  ...(ctx.before.length === 0 ? [PROTECTION_OFF] : []),
];

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
