import { z } from 'zod';
import { info, muted, type OutputLine } from '../services/terminal/output';
import { usageArguments } from './usage';
import type { CommandDefinition, RegistryView } from './types';

/** One positional argument as `usage` declares it, with the description its schema carries. */
export interface ArgumentInfo {
  name: string;
  required: boolean;
  /** `<words...>`: takes the rest of the line. */
  variadic: boolean;
  description: string | undefined;
}

const ARGUMENT = /<([^>.]+)(\.\.\.)?>|\[([^\].]+)(\.\.\.)?\]/g;

/** The positional arguments of a command, in order, from its usage line and argument schema. */
export function describeArguments(definition: CommandDefinition): ArgumentInfo[] {
  const shape = definition.args instanceof z.ZodObject ? definition.args.shape : {};
  return [...usageArguments(definition).matchAll(ARGUMENT)].map((m) => {
    const name = m[1] ?? m[3] ?? '';
    const field: unknown = Object.hasOwn(shape, name) ? (shape as Record<string, unknown>)[name] : undefined;
    return {
      name,
      required: m[1] !== undefined,
      variadic: (m[2] ?? m[4]) !== undefined,
      description: field instanceof z.ZodType ? field.description : undefined,
    };
  });
}

/** Commands grouped by area, in the order areas were registered. */
export function byArea(registry: RegistryView): Map<string, CommandDefinition[]> {
  const areas = new Map<string, CommandDefinition[]>();
  for (const command of registry.list()) {
    areas.set(command.area, [...(areas.get(command.area) ?? []), command]);
  }
  return areas;
}

const argumentLabel = (a: ArgumentInfo): string =>
  `${a.required ? '<' : '['}${a.name}${a.variadic ? '...' : ''}${a.required ? '>' : ']'}`;

/** `help <command>`: usage, arguments, options, aliases and examples, all from the definition. */
export function details(command: CommandDefinition): OutputLine[] {
  const lines: OutputLine[] = [info(`${command.name} — ${command.summary}`), info(`Usage: ${command.usage}`)];
  const args = describeArguments(command);
  if (args.length > 0) {
    const width = Math.max(...args.map((a) => argumentLabel(a).length));
    lines.push(
      info('Arguments:'),
      ...args.map((a) =>
        info(
          `  ${argumentLabel(a).padEnd(width)}  ${a.description ?? ''}${a.required ? '' : ' (optional)'}`.trimEnd(),
        ),
      ),
    );
  }
  if (command.options !== undefined && command.options.length > 0) {
    lines.push(info('Options:'), ...command.options.map((o) => info(`  ${o.flags}  ${o.description}`)));
  }
  if (command.aliases !== undefined && command.aliases.length > 0) {
    lines.push(info(`Aliases: ${command.aliases.join(', ')}`));
  }
  if (command.examples.length > 0) {
    lines.push(info('Examples:'), ...command.examples.map((e) => muted(`  ${e}`)));
  }
  return lines;
}
