import type { z } from 'zod';
import type { Api } from '../services/api';
import type { Stores } from '../services/stores';
import type { OutputLine } from '../services/terminal/output';

/** An option a command accepts, in commander's flag syntax, e.g. `-a, --all`. */
export interface OptionSpec {
  flags: string;
  description: string;
}

/** What every command handler receives: the stores and the API clients (no DOM). */
export interface CommandContext {
  stores: Stores;
  api: Pick<Api, 'main' | 'trading'>;
  registry: RegistryView;
}

export type CommandResult = OutputLine[] | Promise<OutputLine[]>;

/**
 * One command, defined once and called by the terminal, the palette, pane buttons, the CLI and tests.
 * `usage` is the grammar: the name, then positional arguments as `<required>`, `[optional]` or
 * `<many...>`. The parsed positionals (by name) and options form the object `args` validates.
 */
export interface CommandDefinition<S extends z.ZodType = z.ZodType> {
  name: string;
  aliases?: readonly string[];
  /** The area it belongs to; `help` groups commands by area. */
  area: string;
  summary: string;
  usage: string;
  examples: readonly string[];
  options?: readonly OptionSpec[];
  args: S;
  run(ctx: CommandContext, args: z.output<S>): CommandResult;
}

/** Read access to the registry, for `help` and completion. */
export interface RegistryView {
  list(): readonly CommandDefinition[];
  /** A command by name or alias (case-insensitive). */
  get(name: string): CommandDefinition | undefined;
  /** Command names starting with `prefix`, sorted. */
  complete(prefix: string): string[];
}

/** Identity helper that types `run`'s arguments from the `args` schema. */
export function defineCommand<S extends z.ZodType>(definition: CommandDefinition<S>): CommandDefinition<S> {
  return definition;
}
