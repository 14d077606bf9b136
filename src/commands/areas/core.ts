import { z } from 'zod';
import { failure, info, muted } from '../../services/terminal/output';
import type { OutputLine } from '../../services/terminal/output';
import { unknownCommandText } from '../registry';
import { defineCommand, type CommandDefinition, type RegistryView } from '../types';

/** The command list, grouped by area in the order areas were registered. */
function listing(registry: RegistryView): OutputLine[] {
  const areas = new Map<string, CommandDefinition[]>();
  for (const command of registry.list())
    areas.set(command.area, [...(areas.get(command.area) ?? []), command]);
  const width = Math.max(...registry.list().map((c) => c.name.length));
  const lines: OutputLine[] = [info('Commands:')];
  for (const [area, commands] of areas) {
    lines.push(muted(`  ${area}`));
    for (const c of commands) lines.push(info(`    ${c.name.padEnd(width)}  ${c.summary}`));
  }
  lines.push(muted('Type "help <command>" for its usage and examples.'));
  return lines;
}

/** One command's usage, options, aliases and examples. */
function details(command: CommandDefinition): OutputLine[] {
  const lines: OutputLine[] = [info(`${command.name} — ${command.summary}`), info(`Usage: ${command.usage}`)];
  if (command.aliases !== undefined && command.aliases.length > 0) {
    lines.push(info(`Aliases: ${command.aliases.join(', ')}`));
  }
  if (command.options !== undefined && command.options.length > 0) {
    lines.push(info('Options:'), ...command.options.map((o) => info(`  ${o.flags}  ${o.description}`)));
  }
  if (command.examples.length > 0) {
    lines.push(info('Examples:'), ...command.examples.map((e) => muted(`  ${e}`)));
  }
  return lines;
}

export const help = defineCommand({
  name: 'help',
  area: 'general',
  summary: 'List the commands, or show how to use one.',
  usage: 'help [command...]',
  examples: ['help', 'help symbol'],
  args: z.object({ command: z.array(z.string()).optional() }),
  run({ registry }, { command }) {
    if (command === undefined || command.length === 0) return listing(registry);
    const name = command.join(' ');
    const found = registry.get(name);
    return found === undefined ? [failure(unknownCommandText(name), 'unknown-command')] : details(found);
  },
});

export const clear = defineCommand({
  name: 'clear',
  aliases: ['cls'],
  area: 'general',
  summary: 'Clear the terminal.',
  usage: 'clear',
  examples: ['clear'],
  args: z.object({}),
  run({ stores }) {
    stores.terminal.clear();
    return [];
  },
});

export default [help, clear];
