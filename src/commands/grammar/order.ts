import { protectionAsked, type ProtectionInput } from '../../contracts/protection';
import { findTicker } from '../../contracts/symbols';
import { isProtectionWord, parseProtectionWords, PROTECTION_MESSAGES } from './protection';

/**
 * The order grammar of the command prompt (docs/product.md §5): two words `<side> <amount>` on the chosen symbol,
 * or three words `<asset> <side> <amount>`. The side is long or short (`buy` and `sell` are accepted as
 * their aliases); the amount is a USDT total, optionally with a `k` suffix for thousands, above zero.
 * Ours: protection may follow the amount, in any order (`btc long 500 sl 2% tp 5% trail 1% exit 30m`,
 * see ./protection).
 */

export const ORDER_MESSAGES = {
  format: 'Invalid command format.',
  side: (side: string) => `Invalid side: '${side}'.`,
  assetOrAmount: 'Invalid asset or amount.',
} as const;

export type OrderSide = 'long' | 'short';

export interface ParsedOrder {
  /** `BTC` */
  ticker: string;
  /** `BTC/USDT` */
  pair: string;
  side: OrderSide;
  /** USDT total. */
  amount: number;
  /** The stop-loss, take-profit, trailing stop and time exit typed after the amount; absent when none. */
  protection?: ProtectionInput;
}

export type OrderParse = { ok: true; order: ParsedOrder } | { ok: false; message: string };

const SIDES: Record<string, OrderSide> = { long: 'long', short: 'short', buy: 'long', sell: 'short' };

/** `250` → 250, `2.5k` → 2500, anything else (or ≤ 0) → null. */
export function parseAmount(text: string): number | null {
  const match = /^(\d+(?:\.\d+)?|\.\d+)(k?)$/i.exec(text.trim());
  if (!match) return null;
  const value = Number(match[1]) * (match[2] === '' ? 1 : 1000);
  return Number.isFinite(value) && value > 0 ? Math.round(value * 1e8) / 1e8 : null;
}

/** True when a word names a side of the grammar. */
export function isSide(word: string): boolean {
  return word.toLowerCase() in SIDES;
}

/**
 * Parses the words of an order line. `currentTicker` is the chosen symbol's ticker, used by the
 * two-word form. Words after the amount are protection (`sl 2% tp 5%`): a word there that starts no
 * leg is an invalid option when it is a word (`now`), and the spec's format error otherwise (`long 5 6`).
 */
export function parseOrderWords(words: readonly string[], currentTicker: string): OrderParse {
  // Two words, or a side first, is the two-word form; anything else names its asset first.
  const base = words.length === 2 || isSide(words[0] ?? '') ? 2 : 3;
  if (words.length < base || words.length < 2) return { ok: false, message: ORDER_MESSAGES.format };
  const [sideWord, amountWord, assetWord] =
    base === 2 ? [words[0], words[1], currentTicker] : [words[1], words[2], words[0]];
  const side = SIDES[(sideWord ?? '').toLowerCase()];
  if (side === undefined) return { ok: false, message: ORDER_MESSAGES.side(sideWord ?? '') };
  const rest = words.slice(base);
  const [option] = rest;
  if (option !== undefined && !isProtectionWord(option)) {
    const message = /^[a-z]+$/i.test(option) ? PROTECTION_MESSAGES.option(option) : ORDER_MESSAGES.format;
    return { ok: false, message };
  }
  const amount = parseAmount(amountWord ?? '');
  const info = findTicker(assetWord ?? '');
  if (amount === null || info === undefined) return { ok: false, message: ORDER_MESSAGES.assetOrAmount };
  const order: ParsedOrder = { ticker: info.ticker, pair: info.pair, side, amount };
  if (rest.length === 0) return { ok: true, order };
  const protection = parseProtectionWords(rest);
  if (!protection.ok) return protection;
  return {
    ok: true,
    order: protectionAsked(protection.protection) ? { ...order, protection: protection.protection } : order,
  };
}

/** `5000` → `5k`, `2500` → `2.5k`, `250` → `250` (docs/product.md §9: amounts of 1000 or more show with k). */
export function formatAmount(amount: number): string {
  if (amount < 1000) return String(amount);
  const k = amount / 1000;
  return `${Number.isInteger(k) ? k : Number(k.toFixed(3))}k`;
}
