import { similarOptionHint } from './suggest';
import type { CommandDefinition } from './types';
import { flags, positionals, type Flag } from './usage';

/** Splits a line into words; single or double quotes keep spaces inside one word. */
export function tokenize(line: string): { words: string[]; error?: string } {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (const ch of line) {
    if (quote !== null) {
      if (ch === quote) quote = null;
      else word += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (quote !== null) return { words, error: `Unclosed ${quote} quote.` };
  if (inWord) words.push(word);
  return { words };
}

export type ParsedArgs = { ok: true; values: Record<string, unknown> } | { ok: false; message: string };

export interface ParseOptions {
  /** Every word is a positional argument, none an option (order lines: `-5` reaches the grammar). */
  literal?: boolean;
}

/** A word that looks like an option: a dash and at least one more character. */
const looksLikeOption = (word: string): boolean => word.length > 1 && word.startsWith('-');

/** `-5` and `-.5` are arguments, not options, unless the command has a digit as a short option. */
const negativeNumber = (word: string, known: readonly Flag[]): boolean =>
  /^-(\d+|\d*\.\d+)(e[+-]?\d+)?$/.test(word) && !known.some((f) => /^-\d$/.test(f.short ?? ''));

/** The words split into arguments and options, or the first option left without its value. */
interface Scan {
  operands: string[];
  /** The first word that is not a known option, and every word after it. */
  unknown: string[];
  options: Record<string, string | true>;
  missingValue?: Flag;
}

/**
 * Reads options the way command-line tools do: `--name value`, `--name=value`, `-n value`, `-nvalue`,
 * switches grouped as `-ab`, and `--` ending the options.
 */
function scan(words: readonly string[], known: readonly Flag[]): Scan {
  const result: Scan = { operands: [], unknown: [], options: {} };
  const find = (word: string): Flag | undefined => known.find((f) => f.short === word || f.long === word);
  let dest = result.operands;
  let group: string | null = null;
  let i = 0;
  while (i < words.length || group !== null) {
    const word: string = group ?? words[i++] ?? '';
    group = null;
    if (word === '--') {
      if (dest === result.unknown) dest.push(word);
      dest.push(...words.slice(i));
      break;
    }
    const option = looksLikeOption(word) ? find(word) : undefined;
    if (option !== undefined) {
      if (!option.takesValue) result.options[option.key] = true;
      else {
        const value = words[i++];
        if (value === undefined) return { ...result, missingValue: option };
        result.options[option.key] = value;
      }
      continue;
    }
    // `-n5` is `-n 5`; `-ab` is `-a -b` when `-a` is a switch.
    const grouped =
      word.length > 2 && word[0] === '-' && word[1] !== '-' ? find(word.slice(0, 2)) : undefined;
    if (grouped !== undefined) {
      if (grouped.takesValue) result.options[grouped.key] = word.slice(2);
      else {
        result.options[grouped.key] = true;
        group = `-${word.slice(2)}`;
      }
      continue;
    }
    const equals = /^--[^=]+=/.test(word) ? word.indexOf('=') : -1;
    const named = equals < 0 ? undefined : find(word.slice(0, equals));
    if (named?.takesValue === true) {
      result.options[named.key] = word.slice(equals + 1);
      continue;
    }
    if (dest === result.operands && looksLikeOption(word) && !negativeNumber(word, known))
      dest = result.unknown;
    dest.push(word);
  }
  return result;
}

/**
 * Parses the words after the command name: positionals as its `usage` declares them and options from
 * its flags. The values are keyed by argument name and option key, ready for the `args` schema.
 */
export function parseArguments(
  definition: CommandDefinition,
  words: readonly string[],
  options: ParseOptions = {},
): ParsedArgs {
  const known = flags(definition);
  const declared = positionals(definition);
  const read: Scan =
    options.literal === true ? { operands: [...words], unknown: [], options: {} } : scan(words, known);
  if (read.missingValue !== undefined) {
    return { ok: false, message: `Option '${read.missingValue.spec.flags}' argument missing.` };
  }
  const [unknown] = read.unknown;
  if (unknown !== undefined) {
    const longFlags = known.flatMap((f) => (f.long === undefined ? [] : [f.long]));
    return { ok: false, message: `Unknown option '${unknown}'${similarOptionHint(unknown, longFlags)}.` };
  }
  const { operands } = read;
  const missing = declared.find((p, index) => p.required && operands[index] === undefined);
  if (missing !== undefined) return { ok: false, message: `Missing required argument '${missing.name}'.` };
  const last = declared.at(-1);
  if (last?.variadic !== true && operands.length > declared.length) {
    const expected = `${declared.length} argument${declared.length === 1 ? '' : 's'}`;
    return { ok: false, message: `Too many arguments. Expected ${expected} but got ${operands.length}.` };
  }
  const values: Record<string, unknown> = { ...read.options };
  declared.forEach((p, index) => {
    const value = p.variadic ? operands.slice(index) : operands[index];
    if (value !== undefined) values[p.name] = value;
  });
  return { ok: true, values };
}
