import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProtectionInput } from '../contracts/protection';
import { findTicker } from '../contracts/symbols';
import { expandLine } from './chain';
import { ORDER_COMMAND, SIDE_COMMANDS, sideOrder } from './grammar/line';
import { CommandParseError } from './errors';
import { parseOrderWords, type OrderParse } from './grammar/order';
import { tokenize } from './parse';
import { readLine } from './read';
import { recordedReply } from '../services/trading/testing/serverAnswers';
import { createTestConsole } from './testing/scripted';

/**
 * The command-line parser under 100,000 random and mutated lines: it never throws anything but a
 * CommandParseError, and a line becomes an order only when it matches the order grammar (docs/product.md §5),
 * checked against an independent reading of the grammar below.
 */

const TICKER = 'BTC';
const SIDES: Record<string, 'long' | 'short'> = { long: 'long', short: 'short', buy: 'long', sell: 'short' };

/**
 * Protection words after the amount, read independently of the parser: keyword and value in turn,
 * each keyword once, the value a percent or price (`sl`, `tp`), a percent (`trail`) or a duration
 * (`exit`), within the wire contract's ranges.
 */
function legsValid(legs: readonly string[]): boolean {
  if (legs.length % 2 === 1) return false;
  const draft: Record<string, number> = {};
  const seen = new Set<string>();
  for (let i = 0; i < legs.length; i += 2) {
    const keyword = (legs[i] ?? '').toLowerCase();
    const value = legs[i + 1] ?? '';
    if (!['sl', 'tp', 'trail', 'exit'].includes(keyword) || seen.has(keyword)) return false;
    seen.add(keyword);
    const number = /^(\d+(?:\.\d+)?|\.\d+)/.exec(value)?.[1];
    if (number === undefined) return false;
    const unit = value.slice(number.length).toLowerCase();
    if (keyword === 'exit') {
      const factor = { m: 1, h: 60, d: 1440 }[unit];
      if (factor === undefined) return false;
      // Minutes to a millionth, as typed: 0.1h is 6 minutes.
      draft.exit_after_min = Math.round(Number(number) * factor * 1e6) / 1e6;
    } else if (keyword === 'trail') {
      if (unit !== '%') return false;
      draft.trailing_pct = Number(number);
    } else {
      const name = keyword === 'sl' ? 'stop_loss' : 'take_profit';
      if (unit === '%') draft[`${name}_pct`] = Number(number);
      else if (unit === '' || unit === 'k')
        draft[`${name}_price`] = Number(number) * (unit === 'k' ? 1000 : 1);
      else return false;
    }
  }
  return ProtectionInput.safeParse(draft).success;
}

/** The grammar, read independently of the parser: the order a line's words stand for, or null. */
function oracle(words: readonly string[]): { pair: string; side: string; amount: number } | null {
  const amountOf = (w: string): number | null => {
    if (!/^(\d+(\.\d+)?|\.\d+)k?$/i.test(w)) return null;
    const n = Number.parseFloat(w) * (/k$/i.test(w) ? 1000 : 1);
    return n > 0 && Number.isFinite(n) ? n : null;
  };
  const order = (ticker: string, sideWord: string, amountWord: string, legs: readonly string[]) => {
    const side = SIDES[sideWord.toLowerCase()];
    const amount = amountOf(amountWord);
    const info = findTicker(ticker);
    return side === undefined || amount === null || info === undefined || !legsValid(legs)
      ? null
      : { pair: info.pair, side, amount };
  };
  /** The words of an order: `<side> <amount>` or `<asset> <side> <amount>`, then protection. */
  const orderOf = (w: readonly string[]) => {
    const [a = '', b = '', c = ''] = w;
    if (w.length === 2 || a.toLowerCase() in SIDES)
      return w.length < 2 ? null : order(TICKER, a, b, w.slice(2));
    return w.length < 3 ? null : order(a, b, c, w.slice(3));
  };
  const [a = ''] = words;
  const first = a.toLowerCase();
  if (first in SIDES) return orderOf(words);
  if (first === 'order') return orderOf(words.slice(1));
  // A bare line starting with a ticker that is not also a command.
  return words.length >= 3 ? orderOf(words) : null;
}

const VOCABULARY = [
  'sl',
  'SL',
  'tp',
  'trail',
  'exit',
  '2%',
  '.5%',
  '0%',
  '200%',
  '98000',
  '98k',
  '30m',
  '2h',
  '8d',
  '1.5h',
  'off',
  'protect',
  'be',
  'btc',
  'BTC',
  'eth',
  'sol',
  'doge',
  '1000pepe',
  'nope',
  'long',
  'short',
  'buy',
  'sell',
  'LONG',
  'order',
  'close',
  'all',
  'positions',
  'help',
  'symbol',
  'price',
  'chart',
  'leverage',
  'alias',
  'fatfinger',
  'login',
  'devices',
  'rm',
  '2fa',
  'setup',
  'paper',
  'reset',
  'clear',
  'layout',
  '5k',
  '2.5k',
  '.5k',
  '100',
  '0',
  '-5',
  '1e3',
  '0x10',
  '5kk',
  'k',
  '5K',
  '25000',
  '1000000',
  'NaN',
  'Infinity',
  '--',
  '-r',
  '--remember',
  '--all',
  '-h',
  '--help',
  '--version',
  '"',
  "'",
  '""',
  '"btc long"',
  ';',
  '=',
  'b="x"',
  '\t',
  '  ',
  '\\',
  '$',
  '__proto__',
  'constructor',
  'toString',
  '🚀',
  'ＢＴＣ',
  '٣',
];

const word = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...VOCABULARY) },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
);
const structured = fc.array(word, { minLength: 0, maxLength: 6 }).map((w) => w.join(' '));
const VALID = [
  'btc long 5k',
  'long 100',
  'short 2.5k',
  'order eth short 250',
  'sol buy .5k',
  'close btc',
  'btc long 500 sl 2% tp 5%',
  'short 1k trail 1% exit 30m',
];
/** A valid line with characters inserted, deleted or replaced. */
const mutated = fc
  .tuple(
    fc.constantFrom(...VALID),
    fc.array(
      fc.tuple(
        fc.nat(20),
        fc.constantFrom('insert', 'delete', 'replace'),
        fc.string({ minLength: 1, maxLength: 2 }),
      ),
      { minLength: 1, maxLength: 3 },
    ),
  )
  .map(([line, edits]) =>
    edits.reduce((text, [at, kind, ch]) => {
      const i = at % (text.length + 1);
      if (kind === 'insert') return text.slice(0, i) + ch + text.slice(i);
      if (kind === 'delete') return text.slice(0, i) + text.slice(i + 1);
      return text.slice(0, i) + ch + text.slice(i + 1);
    }, line),
  );
const anyLine = fc.oneof(
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 4, arbitrary: structured },
  { weight: 3, arbitrary: mutated },
);

/** What the parser makes of one command: the order it would place, null for another command, or its error. */
function parseOne(
  registry: ReturnType<typeof createTestConsole>['commands']['registry'],
  part: string,
): OrderParse | null {
  const { definition, args } = registry.resolve(readLine(part, registry));
  const values = args as { words?: string[]; amount?: string[] };
  if (definition.name === ORDER_COMMAND) return parseOrderWords(values.words ?? [], TICKER);
  if ((SIDE_COMMANDS as readonly string[]).includes(definition.name)) {
    return sideOrder(definition.name, values.amount ?? [], TICKER);
  }
  return null;
}

describe('command-line parser under fuzzing', () => {
  it('throws only typed parse errors and orders only lines of the grammar (20,000 lines)', () => {
    const { commands } = createTestConsole();
    let orders = 0;
    let protectedOrders = 0;
    fc.assert(
      fc.property(anyLine, (line) => {
        for (const part of expandLine(line, {})) {
          let parsed: OrderParse | null;
          try {
            parsed = parseOne(commands.registry, part);
          } catch (error) {
            if (!(error instanceof CommandParseError)) throw error;
            continue;
          }
          // The preview of the command line reads the part the same way.
          expect(commands.readOrder(part)).toEqual(parsed);
          const expected = tokenize(part).error === undefined ? oracle(tokenize(part).words) : null;
          if (parsed?.ok === true) {
            orders += 1;
            if (parsed.order.protection !== undefined) protectedOrders += 1;
            expect(expected).not.toBeNull();
            expect({ pair: parsed.order.pair, side: parsed.order.side }).toEqual({
              pair: expected?.pair,
              side: expected?.side,
            });
            expect(parsed.order.amount).toBeCloseTo(expected?.amount ?? -1, 6);
          } else if (expected !== null && !part.includes('--')) {
            // A grammar line that is not an order must at least not be a different command.
            expect(parsed === null || parsed.ok).toBe(false);
          }
        }
      }),
      { numRuns: 20_000, seed: 8 },
    );
    expect(orders).toBeGreaterThan(100); // the generator does reach real orders
    expect(protectedOrders).toBeGreaterThan(20); // and orders with protection
  }, 300_000);

  it('places exactly the orders the grammar allows when lines really run (2,000 lines)', async () => {
    const c = createTestConsole({ token: 'tok' });
    c.commands.shell.preferences.setFatFingerCap(1e15);
    c.server.on('POST /orders', () => recordedReply('btc long 200'));
    c.server.on('GET /positions', () => ({ status: 200, body: [] }));
    const lines = fc.sample(anyLine, { numRuns: 2000, seed: 9 });
    let expected = 0;
    for (const line of lines) {
      for (const part of expandLine(line, {})) {
        const { words, error } = tokenize(part);
        if (error === undefined && oracle(words) !== null) expected += 1;
      }
      // Questions (passwords, y/N) are answered with Ctrl+C; a `fatfinger` line before must not make
      // the next order ask.
      c.commands.shell.preferences.setFatFingerCap(1e15);
      const out = await c.answering(line);
      expect(out.every((l) => typeof l === 'string')).toBe(true);
      expect(c.server.count('POST /orders')).toBe(expected);
    }
    expect(expected).toBeGreaterThan(10);
  }, 60_000);
});
