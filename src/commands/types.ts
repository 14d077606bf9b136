import type { z } from 'zod';
import type { Api } from '../services/api';
import type { Stores } from '../services/stores';
import type { OutputLine } from '../services/terminal/output';
import type { Shell } from './shell';

/** An option a command accepts: `-a, --all` or `--pos` (a switch), `--min <impact>` (takes a value). */
export interface OptionSpec {
  flags: string;
  description: string;
}

/** What every command handler receives: the stores and the API clients (no DOM). */
export interface CommandContext {
  stores: Stores;
  api: Pick<Api, 'main' | 'trading'>;
  registry: RegistryView;
  /** Aborted when the person cancels the command (Ctrl+C); the API clients of `api` honour it. */
  signal: AbortSignal;
  /** Aliases, console preferences (the fat-finger cap) and the browser layout, when there is one. */
  shell: Shell;
}

/** Lines to print and, for `--json` and other programs, the same answer as data. */
export interface CommandOutput {
  lines: OutputLine[];
  data?: unknown;
}

export type CommandResult = OutputLine[] | CommandOutput | Promise<OutputLine[] | CommandOutput>;

/** What a completion provider sees: the stores, the word being completed and the words before it. */
export interface CompletionContext {
  stores: Stores;
  shell: Shell;
  registry: RegistryView;
  /** The part of the word typed so far (may be empty). */
  prefix: string;
  /** The arguments already typed before this one. */
  before: readonly string[];
}

/** Candidates for one argument; the engine keeps those that start with the prefix. */
export type CompletionProvider = (ctx: CompletionContext) => readonly string[];

/**
 * One command, defined once and called by the terminal, the palette, pane buttons, the CLI and tests.
 * `usage` is the grammar: the name, then positional arguments as `<required>`, `[optional]`,
 * `<many...>` or `[many...]`. The parsed positionals (by name) and options form the object `args` validates.
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
  /** Signed out, the registry answers "You must be logged in." (and opens the login window) instead of running it. */
  loginRequired?: true;
  args: S;
  /** Tab completion for positional arguments, by argument name (as in `usage`). */
  complete?: Readonly<Record<string, CompletionProvider>>;
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
