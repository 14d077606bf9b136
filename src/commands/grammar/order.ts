import { protectionAsked, type ProtectionInput } from '../../contracts/protection';
import { findTicker } from '../../contracts/symbols';
import { isStablecoin, TRADABILITY_TEXT } from '../../contracts/tradability';
import type { TimeInForce } from '../../contracts/trading';
import { isProtectionWord, parseProtectionWords, PROTECTION_MESSAGES } from './protection';

/**
 * The order grammar of the command prompt (docs/product.md §5): two words `<side> <amount>` on the chosen symbol,
 * or three words `<asset> <side> <amount>`. The side is long or short (`buy` and `sell` are accepted as
 * their aliases); the amount is a USDT total, optionally with a `k` suffix for thousands, above zero.
 * Ours: protection may follow the amount, in any order (`btc long 500 sl 2% tp 5% trail 1% exit 30m`,
 * see ./protection). A limit price follows the amount after `@` (`btc long 5k @ 95000`, `@95000`,
 * `@ 95k`), then `ioc` or `post` if wanted (`btc short 2k @ 101000 post`).
 */

export const ORDER_MESSAGES = {
  format: 'Invalid command format.',
  side: (side: string) => `Invalid side: '${side}'.`,
  assetOrAmount: 'Invalid asset or amount.',
  limitPrice: (word: string) =>
    word === '' ? 'Missing price after @: e.g. @ 95000 or @95k.' : `Invalid limit price: '${word}'.`,
  limitProtection:
    'Protection goes on a filled position: place the limit order without it, then protect the position once it fills.',
} as const;

/** The words after a limit price that choose its time in force (GTC when none). */
export const TIF_WORDS: Record<string, TimeInForce> = { gtc: 'GTC', ioc: 'IOC', post: 'POST' };

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
  /** `--max-slip 0.3%`: the market order's slippage cap in %; absent when not typed. */
  maxSlippagePct?: number;
  /** A limit order's price (USDT) and time in force, typed after `@`; absent for a market order. */
  limit?: { price: number; timeInForce: TimeInForce };
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
export function parseOrderWords(typed: readonly string[], currentTicker: string): OrderParse {
  const slip = takeMaxSlip(typed);
  if (!slip.ok) return slip;
  const parsed = parseOrderBody(slip.words, currentTicker);
  if (!parsed.ok || slip.pct === undefined) return parsed;
  return { ok: true, order: { ...parsed.order, maxSlippagePct: slip.pct } };
}

function parseOrderBody(words: readonly string[], currentTicker: string): OrderParse {
  // Two words, or a side first, is the two-word form; anything else names its asset first.
  const base = words.length === 2 || isSide(words[0] ?? '') ? 2 : 3;
  if (words.length < base || words.length < 2) return { ok: false, message: ORDER_MESSAGES.format };
  const [sideWord, amountWord, assetWord] =
    base === 2 ? [words[0], words[1], currentTicker] : [words[1], words[2], words[0]];
  const side = SIDES[(sideWord ?? '').toLowerCase()];
  if (side === undefined) return { ok: false, message: ORDER_MESSAGES.side(sideWord ?? '') };
  const limit = readLimit(words.slice(base));
  if (limit !== null && !limit.ok) return limit;
  const rest = limit === null ? words.slice(base) : limit.rest;
  if (limit !== null && rest.length > 0) {
    const message = isProtectionWord(rest[0])
      ? ORDER_MESSAGES.limitProtection
      : /^[a-z]+$/i.test(rest[0] ?? '')
        ? `Invalid order option: '${rest[0] ?? ''}'. After the price, add ioc or post if wanted.`
        : ORDER_MESSAGES.format;
    return { ok: false, message };
  }
  const [option] = rest;
  if (option !== undefined && !isProtectionWord(option)) {
    const message = /^[a-z]+$/i.test(option) ? PROTECTION_MESSAGES.option(option) : ORDER_MESSAGES.format;
    return { ok: false, message };
  }
  const amount = parseAmount(amountWord ?? '');
  const info = findTicker(assetWord ?? '');
  // `usdc long 100`: a stablecoin is tagged on the news, never traded.
  if (amount !== null && info === undefined && isStablecoin(assetWord ?? ''))
    return { ok: false, message: TRADABILITY_TEXT.noContract((assetWord ?? '').toUpperCase()) };
  if (amount === null || info === undefined) return { ok: false, message: ORDER_MESSAGES.assetOrAmount };
  const order: ParsedOrder = { ticker: info.ticker, pair: info.pair, side, amount };
  if (limit !== null) return { ok: true, order: { ...order, limit: limit.limit } };
  if (rest.length === 0) return { ok: true, order };
  const protection = parseProtectionWords(rest);
  if (!protection.ok) return protection;
  return {
    ok: true,
    order: protectionAsked(protection.protection) ? { ...order, protection: protection.protection } : order,
  };
}

export const MAX_SLIP_FLAG = '--max-slip';
export const MAX_SLIP_MESSAGES = {
  missing: `Missing value after '${MAX_SLIP_FLAG}'. Use a percent (--max-slip 0.3%).`,
  value: (word: string) =>
    `Invalid max slippage: '${word}'. Use a percent above 0 and at most 10 (--max-slip 0.3%).`,
  twice: `'${MAX_SLIP_FLAG}' is given twice.`,
} as const;

/**
 * Takes `--max-slip <pct>` (or `--max-slip=<pct>`) out of an order line, anywhere in it: the cap in % (the
 * `%` may be left out), within the wire contract's 0 to 10, and the other words in their order.
 */
export function takeMaxSlip(
  words: readonly string[],
): { ok: true; words: string[]; pct?: number } | { ok: false; message: string } {
  const rest: string[] = [];
  let pct: number | undefined;
  for (let i = 0; i < words.length; i++) {
    const word = words[i] ?? '';
    const inline = word.toLowerCase().startsWith(`${MAX_SLIP_FLAG}=`);
    if (word.toLowerCase() !== MAX_SLIP_FLAG && !inline) {
      rest.push(word);
      continue;
    }
    if (pct !== undefined) return { ok: false, message: MAX_SLIP_MESSAGES.twice };
    const value = inline ? word.slice(MAX_SLIP_FLAG.length + 1) : words[++i];
    if (value === undefined || value === '') return { ok: false, message: MAX_SLIP_MESSAGES.missing };
    const match = /^(\d+(?:\.\d+)?|\.\d+)%?$/.exec(value);
    const n = match === null ? NaN : Number(match[1]);
    if (!(n > 0 && n <= 10)) return { ok: false, message: MAX_SLIP_MESSAGES.value(value) };
    pct = n;
  }
  return pct === undefined ? { ok: true, words: rest } : { ok: true, words: rest, pct };
}

type LimitRead =
  | { ok: true; limit: NonNullable<ParsedOrder['limit']>; rest: readonly string[] }
  | { ok: false; message: string };

/**
 * `@ 95000 post …`, `@95k …`: the limit price and time in force at the start of the words after the
 * amount, and the words after them; null when they do not start with `@`.
 */
function readLimit(words: readonly string[]): LimitRead | null {
  const [first] = words;
  if (first === undefined || !first.startsWith('@')) return null;
  const attached = first.slice(1);
  const priceWord = attached === '' ? (words[1] ?? '') : attached;
  const price = parseAmount(priceWord);
  if (price === null) return { ok: false, message: ORDER_MESSAGES.limitPrice(priceWord) };
  let rest = words.slice(attached === '' ? 2 : 1);
  let timeInForce: TimeInForce = 'GTC';
  const tif = TIF_WORDS[(rest[0] ?? '').toLowerCase()];
  if (tif !== undefined) {
    timeInForce = tif;
    rest = rest.slice(1);
  }
  return { ok: true, limit: { price, timeInForce }, rest };
}

/** `5000` → `5k`, `2500` → `2.5k`, `250` → `250` (docs/product.md §9: amounts of 1000 or more show with k). */
export function formatAmount(amount: number): string {
  if (amount < 1000) return String(amount);
  const k = amount / 1000;
  return `${Number.isInteger(k) ? k : Number(k.toFixed(3))}k`;
}
