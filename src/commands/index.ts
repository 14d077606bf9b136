import type { CommandLine } from '../services/terminal/session';
import accountCommands from './areas/account';
import authCommands from './areas/auth';
import coreCommands from './areas/core';
import marketCommands from './areas/market';
import tradingCommands from './areas/trading';
import { readOrderLine, rewriteLine } from './areas/tradingGrammar';
import type { OrderParse } from './grammar/order';
import { createRegistry, type CommandRegistry } from './registry';
import type { CommandContext, CommandDefinition } from './types';

export type { CommandContext, CommandDefinition } from './types';
export { defineCommand } from './types';

/** Every command area, in the order `help` lists them. Add a new area file here. */
export const AREAS: readonly (readonly CommandDefinition[])[] = [
  coreCommands,
  marketCommands,
  tradingCommands,
  authCommands,
  accountCommands,
];

export interface Commands extends CommandLine {
  registry: CommandRegistry;
  /** The order a typed line stands for (on the chosen symbol), or null when it is not an order line. */
  readOrder(line: string): OrderParse | null;
}

/** Builds the registry with every area and binds it to a context (stores and API clients). */
export function createCommands(ctx: Omit<CommandContext, 'registry'>): Commands {
  const registry = createRegistry();
  for (const area of AREAS) for (const command of area) registry.register(command);
  const bound: CommandContext = { ...ctx, registry };
  const isCommand = (word: string): boolean => registry.get(word) !== undefined;
  return {
    registry,
    // A ticker alone chooses the symbol (`eth`); `btc long 5k` and `eth up 5k` reach the order grammar.
    runLine: (line) => registry.runLine(rewriteLine(line, isCommand), bound),
    complete: (prefix) => registry.complete(prefix),
    readOrder: (line) => readOrderLine(line, ctx.stores.ui.ticker.value, isCommand),
  };
}
