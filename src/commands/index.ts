import { sharedPrompt, withSignal } from '../services/api';
import { muted } from '../services/terminal/output';
import type { CommandLine } from '../services/terminal/session';
import accountCommands from './areas/account';
import adminCommands from './areas/admin';
import alertsCommands from './areas/alerts';
import amountsCommands from './areas/amounts';
import authCommands from './areas/auth';
import billingCommands from './areas/billing';
import calibrationCommands from './areas/calibration';
import coreCommands from './areas/core';
import feedCommands from './areas/feed';
import keysCommands from './areas/keys';
import marketCommands from './areas/market';
import notifyCommands from './areas/notify';
import ordersCommands from './areas/orders';
import receiptsCommands from './areas/receipts';
import riskCommands from './areas/risk';
import rulesCommands from './areas/rules';
import rulesLiveCommands from './areas/rulesLive';
import scorecardCommands from './areas/scorecard';
import telegramCommands from './areas/telegram';
import protectionCommands from './areas/protection';
import tradingCommands from './areas/trading';
import watchlistCommands from './areas/watchlist';
import walletCommands from './areas/wallets';
import { expandLine } from './chain';
import { completeLine, type Completion } from './completion';
import { ORDER_COMMAND, orderOf } from './grammar/line';
import type { OrderParse } from './grammar/order';
import { readLine } from './read';
import { createRegistry, type CommandOutcome, type CommandRegistry, type ExitStatus } from './registry';
import { createShell, type Shell } from './shell';
import { terminalStepUp } from './stepUp';
import type { CommandContext, CommandDefinition } from './types';

export type { CommandContext, CommandDefinition } from './types';
export type { CommandOutcome, ExitStatus } from './registry';
export { defineCommand } from './types';

/** Every command area, in the order `help` lists them. Add a new area file here. */
export const AREAS: readonly (readonly CommandDefinition[])[] = [
  coreCommands,
  marketCommands,
  tradingCommands,
  ordersCommands,
  protectionCommands,
  rulesCommands,
  riskCommands,
  rulesLiveCommands,
  authCommands,
  accountCommands,
  feedCommands,
  receiptsCommands,
  scorecardCommands,
  calibrationCommands,
  watchlistCommands,
  alertsCommands,
  notifyCommands,
  telegramCommands,
  amountsCommands,
  walletCommands,
  keysCommands,
  billingCommands,
  adminCommands,
];

export interface RunOptions {
  /** Cancels the line (Ctrl+C): the running command's API calls stop. */
  signal?: AbortSignal;
}

export interface Commands extends CommandLine {
  registry: CommandRegistry;
  shell: Shell;
  /** Runs a line (aliases expanded, `;` parts in turn, stopping at the first that fails). */
  run(line: string, options?: RunOptions): Promise<CommandOutcome>;
  /** Tab completion for the text before the cursor. */
  completeLine(text: string): Completion;
  /** The order a typed line stands for (on the chosen symbol), or null when it is not an order line. */
  readOrder(line: string): OrderParse | null;
}

export const STOPPED_TEXT = 'Stopped: the rest of the line was not run.';

/** Builds the registry with every area and binds it to a context (stores, API clients, shell). */
export function createCommands(
  ctx: Omit<CommandContext, 'registry' | 'signal' | 'shell'> & { shell?: Shell },
): Commands {
  const registry = createRegistry();
  for (const area of AREAS) for (const command of area) registry.register(command);
  const shell = ctx.shell ?? createShell();

  const run = async (line: string, options: RunOptions = {}): Promise<CommandOutcome> => {
    const signal = options.signal ?? new AbortController().signal;
    // A call that needs the sign-in confirmed asks for the password here, at the prompt, not in a dialog.
    const main = withSignal(ctx.api.main, signal);
    const stepUp = sharedPrompt(terminalStepUp({ main, terminal: ctx.stores.terminal, signal }));
    const bound: CommandContext = {
      stores: ctx.stores,
      api: {
        main: withSignal(ctx.api.main, signal, stepUp),
        trading: withSignal(ctx.api.trading, signal, stepUp),
      },
      registry,
      signal,
      shell,
    };
    const parts = expandLine(line, shell.aliases.all.peek());
    const outcome: CommandOutcome = { lines: [], exit: 0 };
    for (const [index, part] of parts.entries()) {
      // A ticker alone chooses the symbol (`eth`); `btc long 5k` and `eth up 5k` reach the order grammar.
      // `2 long 500` trades the asset of the second signal on screen.
      const result = await registry.execute(readLine(part, registry), bound);
      outcome.lines.push(...result.lines);
      outcome.data = result.data;
      outcome.exit = Math.max(outcome.exit, result.exit) as ExitStatus;
      if (signal.aborted) break;
      if (result.exit !== 0 && index < parts.length - 1) {
        outcome.lines.push(muted(STOPPED_TEXT));
        break;
      }
    }
    return outcome;
  };

  return {
    registry,
    shell,
    run,
    runLine: async (line, signal) => (await run(line, signal === undefined ? {} : { signal })).lines,
    completeLine: (text) =>
      completeLine(text, { registry, stores: ctx.stores, shell, orderCommand: ORDER_COMMAND }),
    complete: (text) =>
      completeLine(text, { registry, stores: ctx.stores, shell, orderCommand: ORDER_COMMAND }),
    readOrder: (line) => {
      const [only, ...more] = expandLine(line, shell.aliases.all.peek());
      const read = only === undefined || more.length > 0 ? null : readLine(only, registry);
      return read?.kind === 'order'
        ? orderOf(read.definition.name, read.words, ctx.stores.ui.ticker.value)
        : null;
    },
  };
}
