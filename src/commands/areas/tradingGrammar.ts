import { findTicker } from '../../contracts/symbols';
import { ORDER_MESSAGES, isSide, parseOrderWords, type OrderParse } from '../grammar/order';
import { quoteWord, tokenize } from '../parse';

/**
 * Which typed lines are orders (spec §5 command prompt): `long 100` and `short 2.5k` (and their aliases
 * `buy`/`sell`), `order btc long 5k`, and the bare three-word form `btc long 5k`, which is rewritten to
 * `order …` so that it reaches the grammar, while `btc` alone still chooses the symbol.
 */

/** The two-word commands, by the side they stand for. */
export const SIDE_COMMANDS = ['long', 'short', 'buy', 'sell'] as const;
/** The command that takes the whole grammar. */
export const ORDER_COMMAND = 'order';

/** True when a word (not a command name) starts an order line: a ticker, or any word before a side. */
function startsOrder(words: readonly string[]): boolean {
  const [first, second] = words;
  if (first === undefined || second === undefined) return false;
  return findTicker(first) !== undefined || (words.length === 3 && isSide(second));
}

const isOrderCommand = (word: string): boolean =>
  word.toLowerCase() === ORDER_COMMAND || (SIDE_COMMANDS as readonly string[]).includes(word.toLowerCase());

/**
 * Rewrites a line before the registry reads it: a known ticker alone (`eth`) → `symbol eth`; an order
 * line without a command (`btc long 5k`, `eth up 5k`) → `order -- btc long 5k`. Order commands get a
 * `--` after their name so that a word such as `-5` reaches the grammar ("Invalid asset or amount.")
 * instead of being read as an option. Other lines are left alone.
 */
export function rewriteLine(line: string, isCommand: (word: string) => boolean): string {
  const { words, error } = tokenize(line);
  const [first, ...rest] = words;
  if (error !== undefined || first === undefined) return line;
  // Words are re-quoted, so that `order "btc long" 5k` stays three words (and not an order).
  if (isOrderCommand(first)) return [first, '--', ...rest].map(quoteWord).join(' ');
  if (isCommand(first)) return line;
  if (words.length === 1) {
    return /^[A-Za-z0-9]{1,12}$/.test(first) && findTicker(first) !== undefined ? `symbol ${first}` : line;
  }
  return startsOrder(words) ? [ORDER_COMMAND, '--', ...words].map(quoteWord).join(' ') : line;
}

/** The grammar applied to the words after a side command (`long 5k` → side `long`, one amount). */
export function sideOrder(side: string, rest: readonly string[], ticker: string): OrderParse {
  if (rest.length !== 1) return { ok: false, message: ORDER_MESSAGES.format };
  return parseOrderWords([side, ...rest], ticker);
}

/**
 * The order a line stands for once rewritten, or null when it is not an order line; `ticker` is the
 * chosen symbol's. The command line's preview uses this to say what Enter will do.
 */
export function readOrderLine(
  line: string,
  ticker: string,
  isCommand: (word: string) => boolean,
): OrderParse | null {
  const { words, error } = tokenize(rewriteLine(line, isCommand));
  const [first, separator, ...rest] = words;
  if (error !== undefined || first === undefined || separator !== '--') return null;
  const name = first.toLowerCase();
  if (name === ORDER_COMMAND) return parseOrderWords(rest, ticker);
  if ((SIDE_COMMANDS as readonly string[]).includes(name)) return sideOrder(name, rest, ticker);
  return null;
}
