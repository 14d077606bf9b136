import { findTicker } from '../../contracts/symbols';
import { ORDER_MESSAGES, isSide, parseOrderWords, type OrderParse } from './order';
import { isProtectionWord } from './protection';

/**
 * The lines of the command prompt (docs/product.md §5) that do not start with the name of the command they call:
 * `btc long 5k` and `eth up 5k` are orders, `#113 long 500` trades the asset of the signal whose id
 * is 113 and `2 long 500` that of the second signal on screen, and `btc` alone chooses the symbol.
 * `long 100`, `short 2.5k` (and their aliases `buy`/`sell`) and `order btc long 5k` are order lines
 * as well: all their words go to the order grammar as typed, none is read as an option, so `long -5`
 * answers "Invalid asset or amount.".
 */

/** The two-word commands, by the side they stand for. */
export const SIDE_COMMANDS = ['long', 'short', 'buy', 'sell'] as const;
/** The command that takes the whole grammar. */
export const ORDER_COMMAND = 'order';
/** The command `2 long 500` calls. */
export const SIGNAL_TRADE_COMMAND = 'trade-signal';
/** The command a ticker typed alone calls. */
const SYMBOL_COMMAND = 'symbol';

/** What such a line calls: a command name, the words after it, and whether they are an order's. */
export interface Shortcut {
  command: string;
  words: readonly string[];
  /** The words go to the order grammar as typed. */
  order: boolean;
}

const isOrderCommand = (word: string): boolean =>
  word.toLowerCase() === ORDER_COMMAND || (SIDE_COMMANDS as readonly string[]).includes(word.toLowerCase());

/**
 * True when a word (not a command name) starts an order line: a ticker, or any word before a side and
 * an amount (and protection words, `nope long 5k sl 2%`, which the grammar then refuses for its asset).
 */
function startsOrder(words: readonly string[]): boolean {
  const [first, second] = words;
  if (first === undefined || second === undefined) return false;
  if (findTicker(first) !== undefined) return true;
  const option = words[3];
  return (
    isSide(second) && (words.length === 3 || isProtectionWord(option) || option?.startsWith('@') === true)
  );
}

/**
 * The command a line calls when it is an order line, a signal trade or a ticker alone; null for a
 * line that starts with a command name (or names nothing). `text` is the line as typed and `words`
 * the same line split into words.
 */
export function readShortcut(
  text: string,
  words: readonly string[],
  isCommand: (word: string) => boolean,
): Shortcut | null {
  const [first] = words;
  if (first === undefined) return null;
  if (/^\s*#?\d+\s+(long|short|buy|sell)\b/i.test(text)) {
    return { command: SIGNAL_TRADE_COMMAND, words, order: false };
  }
  if (isOrderCommand(first)) return { command: first, words: words.slice(1), order: true };
  if (isCommand(first)) return null;
  if (words.length === 1) {
    const ticker = /^[A-Za-z0-9]{1,12}$/.test(first) && findTicker(first) !== undefined;
    return ticker ? { command: SYMBOL_COMMAND, words, order: false } : null;
  }
  return startsOrder(words) ? { command: ORDER_COMMAND, words, order: true } : null;
}

/**
 * The grammar applied to the words after a side command (`long 5k` → side `long`, one amount, then
 * protection words if any: `long 5k sl 2%`).
 */
export function sideOrder(side: string, rest: readonly string[], ticker: string): OrderParse {
  if (rest.length === 0) return { ok: false, message: ORDER_MESSAGES.format };
  return parseOrderWords([side, ...rest], ticker);
}

/** The order the words of an order line stand for; `command` is `order`, `long` or `short`. */
export function orderOf(command: string, words: readonly string[], ticker: string): OrderParse {
  return command === ORDER_COMMAND ? parseOrderWords(words, ticker) : sideOrder(command, words, ticker);
}
