import { findTicker } from '../contracts/symbols';
import type { Stores } from '../services/stores';
import { expandLine } from './chain';
import { describeArguments } from './help';
import { tickers } from './providers';
import type { Shell } from './shell';
import type { CommandDefinition, RegistryView } from './types';

/** What Tab offers: candidates for the word that starts at `from` in the text before the cursor. */
export interface Completion {
  from: number;
  candidates: readonly string[];
}

export interface CompletionEnv {
  registry: RegistryView;
  stores: Stores;
  shell: Shell;
  /** The command a bare order line (`btc long 5k`) stands for. */
  orderCommand: string;
}

/** Where the last chained command starts (after the last `;` outside quotes). */
function lastPartStart(text: string): number {
  let start = 0;
  let quote: string | null = null;
  [...text].forEach((ch, i) => {
    if (quote !== null) {
      if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === ';') start = i + 1;
  });
  return start;
}

const matching = (items: readonly string[], prefix: string): string[] => {
  const lower = prefix.toLowerCase();
  return [...new Set(items.filter((i) => i.toLowerCase().startsWith(lower)))];
};

/** First words: command names (one-word names and the group of two-word ones) and the user's aliases. */
function firstWords(env: CompletionEnv, prefix: string): string[] {
  const names = env.registry.list().map((c) => c.name.split(' ')[0] ?? c.name);
  const words = [...new Set([...names, ...Object.keys(env.shell.aliases.all.peek())])].sort();
  // Tickers choose the symbol and start order lines; offered once a letter is typed.
  return matching([...words, ...(prefix === '' ? [] : tickers())], prefix);
}

const context = (env: CompletionEnv, prefix: string, before: readonly string[]) => ({
  stores: env.stores,
  shell: env.shell,
  registry: env.registry,
  prefix,
  before,
});

/** Candidates for the argument at `index` of a command, from the provider its definition declares. */
function argumentWords(
  env: CompletionEnv,
  definition: CommandDefinition,
  args: readonly string[],
  prefix: string,
): string[] {
  const positional = args.filter((a) => !a.startsWith('-'));
  const declared = describeArguments(definition);
  const last = declared.at(-1);
  const info = declared[positional.length] ?? (last !== undefined && last.variadic ? last : undefined);
  const provider = info === undefined ? undefined : definition.complete?.[info.name];
  if (provider === undefined || info === undefined) return [];
  const before = info.variadic ? positional.slice(declared.length - 1) : positional;
  return matching(provider(context(env, prefix, before)), prefix);
}

/** Tab completion for the text before the cursor (pure: reads the stores, changes nothing). */
export function completeLine(text: string, env: CompletionEnv): Completion {
  const start = lastPartStart(text);
  const part = text.slice(start);
  const from = text.length - (/\S*$/.exec(part)?.[0].length ?? 0);
  const prefix = text.slice(from);
  const typed = part.slice(0, from - start).trim();
  if (typed === '') return { from, candidates: firstWords(env, prefix) };

  // The first word may be an alias: complete as if its expansion had been typed.
  const expanded = expandLine(typed, env.shell.aliases.all.peek()).at(-1) ?? typed;
  const words = expanded.split(/\s+/);
  const [first = '', second] = words;
  const pair = second === undefined ? undefined : env.registry.get(`${first} ${second}`);
  if (pair !== undefined) return { from, candidates: argumentWords(env, pair, words.slice(2), prefix) };

  const single = env.registry.get(first);
  const candidates: string[] = [];
  if (words.length === 1) {
    // The sub-commands of a group (`devices rm`, `close all`).
    const group = env.registry
      .list()
      .filter((c) => c.name.startsWith(`${first.toLowerCase()} `))
      .map((c) => c.name.slice(first.length + 1));
    candidates.push(...matching(group, prefix));
  }
  const definition =
    single ?? (findTicker(first) === undefined ? undefined : env.registry.get(env.orderCommand));
  if (definition !== undefined) {
    const args = single === undefined ? words : words.slice(1);
    candidates.push(...argumentWords(env, definition, args, prefix));
  }
  return { from, candidates: [...new Set(candidates)] };
}
