import { Command, CommanderError } from 'commander';
import type { CommandDefinition } from './types';

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

/**
 * A word written so that {@link tokenize} reads it back unchanged: plain words stay as they are; empty
 * words and words with spaces or quotes are quoted (a `"` inside is written as `'"'`).
 */
export function quoteWord(word: string): string {
  if (/^[^\s"']+$/.test(word)) return word;
  return word
    .split('"')
    .map((part) => `"${part}"`)
    .join(`'"'`);
}

/** The positional part of a usage line: `symbol <ticker>` → `<ticker>`. */
export function usageArguments(definition: CommandDefinition): string {
  return definition.usage.slice(definition.name.length).trim();
}

export type ParsedArgs = { ok: true; values: Record<string, unknown> } | { ok: false; message: string };

/**
 * Parses the words after the command name with commander, which never exits the process and never
 * writes to stdout here: its errors come back as a message.
 */
export function parseArguments(definition: CommandDefinition, words: readonly string[]): ParsedArgs {
  const program = new Command(definition.name)
    .exitOverride()
    .configureOutput({ writeOut: () => undefined, writeErr: () => undefined, outputError: () => undefined })
    .helpOption(false)
    .allowExcessArguments(false)
    .action(() => undefined);
  const positional = usageArguments(definition);
  if (positional !== '') program.arguments(positional);
  for (const option of definition.options ?? []) program.option(option.flags, option.description);

  try {
    program.parse(words, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return { ok: false, message: cleanMessage(error.message) };
    throw error;
  }
  const values: Record<string, unknown> = { ...program.opts() };
  program.registeredArguments.forEach((argument, index) => {
    const value: unknown = program.processedArgs[index];
    if (value !== undefined) values[argument.name()] = value;
  });
  return { ok: true, values };
}

/** `error: missing required argument 'ticker'` → `Missing required argument 'ticker'.` */
function cleanMessage(message: string): string {
  const text = message.replace(/^error:\s*/, '').trim();
  const sentence = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}
