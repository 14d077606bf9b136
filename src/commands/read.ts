import { readShortcut } from './grammar/line';
import { tokenize } from './parse';
import type { CommandDefinition, RegistryView } from './types';

/** One command of a typed line (aliases expanded, `;` parts apart), split into words once. */
export type LineRead =
  /** An order line: the words go to the order grammar as typed; none is read as an option. */
  | { kind: 'order'; definition: CommandDefinition; words: readonly string[] }
  /** A command and the words after its name, parsed by its usage line and options. */
  | { kind: 'command'; definition: CommandDefinition; words: readonly string[] }
  /** The first word (or the first two) name no command. */
  | { kind: 'unknown'; words: readonly string[] }
  /** Nothing to run: an unclosed quote, or no words at all. */
  | { kind: 'unreadable'; message: string };

/**
 * Reads a line: an order line, a signal trade or a ticker alone (see `grammar/line.ts`), else the
 * command its first words name. A two-word command (`rule add`) wins over a one-word command with an
 * argument.
 */
export function readLine(text: string, commands: Pick<RegistryView, 'get'>): LineRead {
  const { words, error } = tokenize(text);
  if (error !== undefined) return { kind: 'unreadable', message: error };
  const [first, second] = words;
  if (first === undefined) return { kind: 'unreadable', message: 'Type a command.' };
  const shortcut = readShortcut(text, words, (word) => commands.get(word) !== undefined);
  const called = shortcut === null ? undefined : commands.get(shortcut.command);
  if (shortcut !== null && called !== undefined) {
    return { kind: shortcut.order ? 'order' : 'command', definition: called, words: shortcut.words };
  }
  const pair = second === undefined ? undefined : commands.get(`${first} ${second}`);
  const definition = pair ?? commands.get(first);
  if (definition === undefined) return { kind: 'unknown', words };
  return { kind: 'command', definition, words: words.slice(pair === undefined ? 1 : 2) };
}
