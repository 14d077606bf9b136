import { findTicker } from '../contracts/symbols';
import type { CommandLine } from '../services/terminal/session';
import accountCommands from './areas/account';
import authCommands from './areas/auth';
import coreCommands from './areas/core';
import marketCommands from './areas/market';
import { createRegistry, type CommandRegistry } from './registry';
import type { CommandContext, CommandDefinition } from './types';

export type { CommandContext, CommandDefinition } from './types';
export { defineCommand } from './types';

/** Every command area, in the order `help` lists them. Add a new area file here. */
export const AREAS: readonly (readonly CommandDefinition[])[] = [
  coreCommands,
  marketCommands,
  authCommands,
  accountCommands,
];

export interface Commands extends CommandLine {
  registry: CommandRegistry;
}

/** A known ticker typed alone (`eth`) means `symbol eth`, unless a command has that name. */
function tickerShortcut(line: string, registry: CommandRegistry): string {
  const word = line.trim();
  if (!/^[A-Za-z0-9]{1,12}$/.test(word) || registry.get(word) !== undefined) return line;
  return findTicker(word) === undefined ? line : `symbol ${word}`;
}

/** Builds the registry with every area and binds it to a context (stores and API clients). */
export function createCommands(ctx: Omit<CommandContext, 'registry'>): Commands {
  const registry = createRegistry();
  for (const area of AREAS) for (const command of area) registry.register(command);
  const bound: CommandContext = { ...ctx, registry };
  return {
    registry,
    runLine: (line) => registry.runLine(tickerShortcut(line, registry), bound),
    complete: (prefix) => registry.complete(prefix),
  };
}
