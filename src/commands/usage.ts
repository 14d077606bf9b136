import type { CommandDefinition, OptionSpec } from './types';

/**
 * The argument syntax a definition declares, read from its `usage` line and option flags. Only the
 * forms the commands use are accepted; anything else is a mistake in the definition and throws.
 */

/** A positional argument of a usage line: `<ticker>`, `[days]`, `<words...>` or `[words...]`. */
export interface Positional {
  name: string;
  required: boolean;
  /** Takes the rest of the words; only the last argument may. */
  variadic: boolean;
}

/** An option read from its flags: `-n, --limit <count>` is `-n` or `--limit`, stored as `limit`. */
export interface Flag {
  spec: OptionSpec;
  short: string | undefined;
  long: string | undefined;
  /** The key of its value in the parsed arguments: the long name in camelCase (`--max-hold` → `maxHold`). */
  key: string;
  /** `--min <impact>` takes the next word; `--pos` is a switch (true when given). */
  takesValue: boolean;
}

const POSITIONAL = /^(?:<([A-Za-z][\w-]*)(\.\.\.)?>|\[([A-Za-z][\w-]*)(\.\.\.)?\])$/;
const FLAGS = /^(?:(-\w)(?:, (?=-))?)?(--\w[\w-]*)?( <[\w-]+>)?$/;

/** The positional part of a usage line: `symbol <ticker>` → `<ticker>`. */
export function usageArguments(definition: CommandDefinition): string {
  return definition.usage.slice(definition.name.length).trim();
}

/** The positional arguments of a definition, in order. */
export function positionals(definition: CommandDefinition): Positional[] {
  const text = usageArguments(definition);
  const declared = text === '' ? [] : text.split(/ +/);
  return declared.map((word, index) => {
    const match = POSITIONAL.exec(word);
    const name = match?.[1] ?? match?.[3];
    if (match === null || name === undefined) {
      throw new Error(`Usage of "${definition.name}" has "${word}": write <name>, [name] or [name...].`);
    }
    const variadic = (match[2] ?? match[4]) !== undefined;
    if (variadic && index < declared.length - 1) {
      throw new Error(`Usage of "${definition.name}": only the last argument may take the rest (...).`);
    }
    return { name, required: match[1] !== undefined, variadic };
  });
}

const camelCase = (name: string): string =>
  name.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase());

/** The options of a definition, read from their flags. */
export function flags(definition: CommandDefinition): Flag[] {
  return (definition.options ?? []).map((spec) => {
    const match = FLAGS.exec(spec.flags);
    const short = match?.[1];
    const long = match?.[2];
    const name = long?.slice(2) ?? short?.slice(1);
    if (match === null || name === undefined) {
      throw new Error(
        `Option "${spec.flags}" of "${definition.name}": write "-x, --name", "--name" or "--name <value>".`,
      );
    }
    return { spec, short, long, key: camelCase(name), takesValue: match[3] !== undefined };
  });
}
