import { errorMessage } from '../services/api/errors';
import { AUTH_TEXT } from '../services/auth/messages';
import { failure, muted, type OutputLine } from '../services/terminal/output';
import { CommandParseError, CommandRefusal } from './errors';
import { parseArguments } from './parse';
import { readLine, type LineRead } from './read';
import { unknownCommandText } from './suggest';
import { flags, positionals } from './usage';
import type { CommandContext, CommandDefinition, CommandOutput, RegistryView } from './types';

/** 0 done, 1 refused (by the server, or a rule such as "log in first"), 2 bad usage. */
export type ExitStatus = 0 | 1 | 2;

/** One command's answer: its lines, its data (for `--json`) and how it ended. */
export interface CommandOutcome extends CommandOutput {
  exit: ExitStatus;
}

/** A line resolved to its command and checked arguments, before anything runs. */
export interface Invocation {
  definition: CommandDefinition;
  args: unknown;
}

export interface CommandRegistry extends RegistryView {
  /**
   * Adds a command; throws when its name or an alias is taken, or its usage does not start with its
   * name, or its usage or option flags are not in a form the parser reads.
   */
  register(definition: CommandDefinition): void;
  /** The command a read line calls, with checked arguments. Throws only {@link CommandParseError}. */
  resolve(read: LineRead): Invocation;
  /** Runs one read line; never throws: every failure becomes an error line and an exit status. */
  execute(read: LineRead, ctx: CommandContext): Promise<CommandOutcome>;
  /** Reads one command's text ({@link readLine}) and answers {@link execute}'s lines. */
  runLine(line: string, ctx: CommandContext): Promise<OutputLine[]>;
}

/** One word, or two for commands in a group such as `rule add` or `2fa setup`. */
const NAME = /^[a-z0-9][a-z0-9-]*( [a-z][a-z0-9-]*)?$/;

export const CANCELLED_TEXT = 'Cancelled.';

const USAGE_ERRORS = new Set(['unknown-command', 'parse', 'invalid-args']);

/** The exit status lines stand for: a usage error wins, then any other error. */
export function exitStatus(lines: readonly OutputLine[]): ExitStatus {
  const errors = lines.filter((l) => l.tone === 'error');
  if (errors.some((l) => l.code !== undefined && USAGE_ERRORS.has(l.code))) return 2;
  return errors.length > 0 ? 1 : 0;
}

const normalise = (result: OutputLine[] | CommandOutput): CommandOutput =>
  Array.isArray(result) ? { lines: result } : result;

/** docs/product.md §5: "You must be logged in.", and the login window opens; null when logged in. */
export function loginRefusal(ctx: CommandContext): OutputLine[] | null {
  if (ctx.stores.session.isLoggedIn.peek()) return null;
  ctx.stores.ui.openAuthModal('login');
  return [failure(AUTH_TEXT.mustLogIn)];
}

export function createRegistry(): CommandRegistry {
  const commands: CommandDefinition[] = [];
  const byName = new Map<string, CommandDefinition>();

  const get = (name: string): CommandDefinition | undefined => byName.get(name.toLowerCase());
  const names = (): string[] => [...byName.keys()];

  const register = (definition: CommandDefinition): void => {
    const all = [definition.name, ...(definition.aliases ?? [])];
    for (const name of all) {
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
    if (new Set(all).size !== all.length) throw new Error(`"${definition.name}" repeats an alias.`);
    positionals(definition);
    flags(definition);
    commands.push(definition);
    for (const name of all) byName.set(name, definition);
  };

  /** The name the person meant, for "Did you mean": a group's sub-command, or any name. */
  const unknown = (first: string, second: string | undefined): CommandParseError => {
    const group = names().filter((n) => n.startsWith(`${first.toLowerCase()} `));
    if (group.length > 0 && second !== undefined) {
      const typed = `${first} ${second}`;
      return new CommandParseError('unknown-command', [unknownCommandText(typed, group)]);
    }
    return new CommandParseError('unknown-command', [unknownCommandText(first, names())]);
  };

  const resolve = (read: LineRead): Invocation => {
    if (read.kind === 'unreadable') throw new CommandParseError('parse', [read.message]);
    if (read.kind === 'unknown') throw unknown(read.words[0] ?? '', read.words[1]);
    const { definition } = read;
    const parsed = parseArguments(definition, read.words, { literal: read.kind === 'order' });
    if (!parsed.ok) throw new CommandParseError('parse', [parsed.message], definition.usage);
    const checked = definition.args.safeParse(parsed.values);
    if (!checked.success) {
      const messages = checked.error.issues.map((issue) => issue.message);
      throw new CommandParseError('invalid-args', messages, definition.usage);
    }
    return { definition, args: checked.data };
  };

  const execute = async (read: LineRead, ctx: CommandContext): Promise<CommandOutcome> => {
    let invocation: Invocation;
    try {
      invocation = resolve(read);
    } catch (thrown) {
      if (!(thrown instanceof CommandParseError)) throw thrown;
      const lines = thrown.messages.map((m) => failure(m, thrown.code));
      if (thrown.usage !== undefined) lines.push(muted(`Usage: ${thrown.usage}`));
      return { lines, exit: 2 };
    }
    const { definition, args } = invocation;
    try {
      const refused = definition.loginRequired === true ? loginRefusal(ctx) : null;
      const output = normalise(refused ?? (await definition.run(ctx, args)));
      if (ctx.signal.aborted) return { lines: [muted(CANCELLED_TEXT)], exit: 1 };
      return { ...output, exit: exitStatus(output.lines) };
    } catch (thrown) {
      if (ctx.signal.aborted) return { lines: [muted(CANCELLED_TEXT)], exit: 1 };
      if (thrown instanceof CommandRefusal) return { lines: [failure(thrown.message)], exit: 1 };
      const fallback = thrown instanceof Error && thrown.message !== '' ? thrown.message : 'Command failed.';
      return { lines: [failure(errorMessage(thrown, fallback))], exit: 1 };
    }
  };

  return {
    register,
    resolve,
    execute,
    runLine: async (line, ctx) => (await execute(readLine(line, { get }), ctx)).lines,
    get,
    list: () => commands,
    complete: (prefix) =>
      commands
        .map((c) => c.name)
        .filter((n) => n.startsWith(prefix.toLowerCase()))
        .sort(),
  };
}
