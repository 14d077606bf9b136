import { z } from 'zod';
import { findTicker } from '../../contracts/symbols';
import { failure, info, muted, success } from '../../services/terminal/output';
import { ALIAS_NAME, parseAliasDefinition } from '../chain';
import { formatAmount, parseAmount } from '../grammar/order';
import { details } from '../help';
import { areaListing, overview } from '../helpAreas';
import { aliasNames, commandNames } from '../providers';
import { unknownCommandText } from '../suggest';
import { defineCommand } from '../types';

const AREA = 'general';

export const help = defineCommand({
  name: 'help',
  area: AREA,
  summary: 'List the areas and the first commands to try, the commands of an area, or how to use one.',
  usage: 'help [command...]',
  examples: ['help', 'help trading', 'help long', 'help rule add'],
  args: z.object({
    command: z.array(z.string()).optional().describe('an area or a command name, e.g. trading or long'),
  }),
  complete: { command: commandNames },
  run({ registry }, { command }) {
    if (command === undefined || command.length === 0) return overview(registry);
    const name = command.join(' ');
    const found = registry.get(name);
    // A name that is both a command and an area (`help rules`): the command, then the rest of its area.
    if (found !== undefined) return [...details(found), ...(areaListing(registry, name, found.name) ?? [])];
    const area = areaListing(registry, name);
    if (area !== null) return area;
    // A word that only starts commands (`help rule`): the commands it starts.
    const family = registry.list().filter((c) => c.name.startsWith(`${name.toLowerCase()} `));
    if (family.length > 0) {
      return [
        ...family.map((c) => info(`${c.name} — ${c.summary}`)),
        muted(`Type "help ${family[0]?.name ?? name}" for its usage and examples.`),
      ];
    }
    const names = registry.list().flatMap((c) => [c.name, ...(c.aliases ?? [])]);
    return [failure(unknownCommandText(name, names), 'unknown-command')];
  },
});

export const clear = defineCommand({
  name: 'clear',
  aliases: ['cls'],
  area: AREA,
  summary: 'Clear the terminal (Ctrl+L does the same).',
  usage: 'clear',
  examples: ['clear'],
  args: z.object({}),
  run({ stores }) {
    stores.terminal.clear();
    return [];
  },
});

export const alias = defineCommand({
  name: 'alias',
  area: AREA,
  summary: 'List your aliases, or make one: alias b="btc long" (then "b 5k").',
  usage: 'alias [definition]',
  examples: ['alias', 'alias b="btc long"', 'alias flip="close btc; btc short 1k"'],
  args: z.object({ definition: z.string().optional().describe('name="what it stands for"') }),
  run({ shell, registry }, { definition }) {
    const all = shell.aliases.all.peek();
    if (definition === undefined) {
      const names = Object.keys(all).sort();
      if (names.length === 0) return [muted('No aliases yet. Make one with: alias b="btc long"')];
      const lines = names.map((n) => info(`${n}="${all[n] ?? ''}"`));
      return { lines, data: all };
    }
    const parsed = parseAliasDefinition(definition);
    if (parsed === null)
      return [failure('Write an alias as name="command", e.g. alias b="btc long".', 'invalid-args')];
    const { name, expansion } = parsed;
    if (!ALIAS_NAME.test(name)) {
      return [
        failure(`An alias name is a lower-case word (letters, digits, dashes): '${name}'.`, 'invalid-args'),
      ];
    }
    if (registry.get(name) !== undefined || findTicker(name) !== undefined) {
      return [failure(`'${name}' is a command or a ticker already; pick another name.`, 'invalid-args')];
    }
    shell.aliases.set(name, expansion);
    return [success(`Alias ${name}="${expansion}" saved.`)];
  },
});

export const unalias = defineCommand({
  name: 'unalias',
  area: AREA,
  summary: 'Remove an alias.',
  usage: 'unalias <name>',
  examples: ['unalias b'],
  args: z.object({ name: z.string().describe('the alias to remove') }),
  complete: { name: aliasNames },
  run({ shell }, { name }) {
    return shell.aliases.remove(name.toLowerCase())
      ? [success(`Alias ${name} removed.`)]
      : [failure(`No alias ${name}.`)];
  },
});

export const fatFinger = defineCommand({
  name: 'fatfinger',
  area: AREA,
  summary: 'Show or set the order size above which an order asks "are you sure?" first.',
  usage: 'fatfinger [amount]',
  examples: ['fatfinger', 'fatfinger 50k'],
  args: z.object({ amount: z.string().optional().describe('USDT, k = thousands') }),
  run({ shell }, { amount }) {
    if (amount === undefined) {
      const cap = shell.preferences.fatFingerCap.peek();
      return {
        lines: [info(`Orders above ${formatAmount(cap)} USDT ask first.`)],
        data: { fatFingerCap: cap },
      };
    }
    const value = parseAmount(amount);
    if (value === null) return [failure('The cap is an amount above 0, e.g. 25k.', 'invalid-args')];
    shell.preferences.setFatFingerCap(value);
    return [success(`Orders above ${formatAmount(value)} USDT will ask first.`)];
  },
});

export const layoutReset = defineCommand({
  name: 'layout reset',
  area: AREA,
  summary: 'Put the panes back to their default sizes.',
  usage: 'layout reset',
  examples: ['layout reset'],
  args: z.object({}),
  run({ shell }) {
    if (shell.layout === null) return [failure('There is no pane layout here.')];
    shell.layout.reset();
    return [success('Layout reset.')];
  },
});

export default [help, clear, alias, unalias, fatFinger, layoutReset];
