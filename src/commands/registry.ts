import { errorMessage } from '../services/api/errors';
import { failure, muted, type OutputLine } from '../services/terminal/output';
import { parseArguments, tokenize } from './parse';
import type { CommandContext, CommandDefinition, RegistryView } from './types';

export interface CommandRegistry extends RegistryView {
  /** Adds a command; throws when its name or an alias is taken or its usage does not start with its name. */
  register(definition: CommandDefinition): void;
  /** Parses and runs one line; never throws: every failure becomes an error line. */
  runLine(line: string, ctx: CommandContext): Promise<OutputLine[]>;
}

/** One word, or two for commands in a group such as `rule add` or `2fa setup`. */
const NAME = /^[a-z0-9][a-z0-9-]*( [a-z][a-z0-9-]*)?$/;

export const unknownCommandText = (name: string): string =>
  `Unknown command: ${name}. Type "help" to list commands.`;

export function createRegistry(): CommandRegistry {
  const commands: CommandDefinition[] = [];
  const byName = new Map<string, CommandDefinition>();

  const get = (name: string): CommandDefinition | undefined => byName.get(name.toLowerCase());

  const register = (definition: CommandDefinition): void => {
    const names = [definition.name, ...(definition.aliases ?? [])];
    for (const name of names) {
      if (!NAME.test(name)) {
        throw new Error(
          `Command name "${name}" must be one or two lower-case words (letters, digits, dashes).`,
        );
      }
      const taken = byName.get(name);
      if (taken !== undefined) {
        throw new Error(`Command name "${name}" is already registered by "${taken.name}".`);
      }
    }
    if (definition.usage !== definition.name && !definition.usage.startsWith(`${definition.name} `)) {
      throw new Error(`Usage of "${definition.name}" must start with its name.`);
    }
    if (new Set(names).size !== names.length) throw new Error(`"${definition.name}" repeats an alias.`);
    commands.push(definition);
    for (const name of names) byName.set(name, definition);
  };

  const runLine = async (line: string, ctx: CommandContext): Promise<OutputLine[]> => {
    const { words, error } = tokenize(line);
    if (error !== undefined) return [failure(error, 'parse')];
    const [first, second] = words;
    if (first === undefined) return [];
    // A two-word command (`rule add`) wins over a one-word command with an argument.
    const pair = second === undefined ? undefined : get(`${first} ${second}`);
    const definition = pair ?? get(first);
    if (definition === undefined) return [failure(unknownCommandText(first), 'unknown-command')];
    const rest = words.slice(pair === undefined ? 1 : 2);

    const parsed = parseArguments(definition, rest);
    if (!parsed.ok) return [failure(parsed.message, 'parse'), muted(`Usage: ${definition.usage}`)];
    const checked = definition.args.safeParse(parsed.values);
    if (!checked.success) {
      return [
        ...checked.error.issues.map((issue) => failure(issue.message, 'invalid-args')),
        muted(`Usage: ${definition.usage}`),
      ];
    }
    try {
      return await definition.run(ctx, checked.data);
    } catch (thrown) {
      const fallback = thrown instanceof Error && thrown.message !== '' ? thrown.message : 'Command failed.';
      return [failure(errorMessage(thrown, fallback))];
    }
  };

  return {
    register,
    runLine,
    get,
    list: () => commands,
    complete: (prefix) =>
      commands
        .map((c) => c.name)
        .filter((n) => n.startsWith(prefix.toLowerCase()))
        .sort(),
  };
}
