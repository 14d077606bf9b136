import { signal } from '@preact/signals-core';
import { createApi } from '../../services/api';
import type { Clock } from '../../services/clock';
import type { TradingViewPort } from '../../services/market/tradingView';
import type { PushPort } from '../../services/notifications';
import { memoryStorage } from '../../services/storage';
import { createStores } from '../../services/stores';
import { createFakeServer } from '../../services/testing/fakeServer';
import { createCommands, type CommandOutcome } from '../index';
import { createShell } from '../shell';

export interface TestConsoleOptions {
  /** Logged in with this access token; a guest when null (the default). */
  token?: string | null;
  /** Storage shared with another console (to test what persists); a fresh one by default. */
  storage?: ReturnType<typeof memoryStorage>;
  /** The way to TradingView's widget `chart tv` uses; none (as in the CLI) by default. */
  tradingView?: TradingViewPort;
  /** The clock the stores wait on; the system's by default. */
  clock?: Clock;
  /** The browser's Web Push; none (as in the CLI) by default. */
  push?: PushPort;
}

/**
 * A scripted session over the real registry and stores, with a fake server behind the API clients:
 * type a line, read its output lines and the stores. Questions (y/N, passwords) are answered from
 * {@link TestConsole.answering}'s list, and every question asked is kept in `asked`.
 */
export function createTestConsole(options: TestConsoleOptions = {}) {
  const server = createFakeServer();
  const storage = options.storage ?? memoryStorage();
  const stores = createStores({
    storage,
    tradingView: options.tradingView,
    clock: options.clock,
    ...(options.push === undefined ? {} : { push: options.push }),
  });
  const api = createApi({
    mainBase: '/api',
    tradingBase: '/api',
    fetch: server.fetch,
    tokens: stores.session,
    navigate: () => undefined,
  });
  let layoutResets = 0;
  const user = signal('guest');
  const shell = createShell({ storage, user, layout: { reset: () => void (layoutResets += 1) } });
  const commands = createCommands({ stores, api, shell });
  if (options.token != null) stores.session.setToken(options.token);

  const asked: string[] = [];
  // Only lines run through `answering` get answers; other tests may answer questions themselves.
  let answers: (string | null)[] | null = null;
  stores.terminal.subscribe((event) => {
    if (event.type !== 'question' || event.question === null || answers === null) return;
    asked.push(event.question.label);
    const next = answers.shift() ?? null;
    queueMicrotask(() => stores.terminal.answer(next));
  });

  const show = (outcome: CommandOutcome): string[] => outcome.lines.map((l) => `${l.tone}: ${l.text}`);
  /** Runs a line and answers its output as `tone: text` strings, easy to compare. */
  const type = async (line: string): Promise<string[]> => show(await commands.run(line));
  return {
    server,
    stores,
    api,
    commands,
    storage,
    asked,
    type,
    /** Runs a line and answers the whole outcome: lines, data and exit status. */
    run: (line: string, signalToAbort?: AbortSignal) =>
      commands.run(line, signalToAbort === undefined ? {} : { signal: signalToAbort }),
    /** Runs a line whose questions get these answers in order (then null, i.e. cancelled). */
    async answering(line: string, ...given: (string | null)[]): Promise<string[]> {
      answers = given;
      try {
        return await type(line);
      } finally {
        answers = null;
      }
    },
    /** The Tab candidates for the text before the cursor. */
    complete: (text: string): readonly string[] => commands.completeLine(text).candidates,
    /** Acts as another user for aliases (history and aliases are kept per user). */
    actAs(name: string): void {
      user.value = name;
    },
    /** The state a test checks after a line. */
    state: () => ({
      symbol: stores.ui.symbol.value,
      loggedIn: stores.session.isLoggedIn.value,
      aliases: shell.aliases.all.value,
      fatFingerCap: shell.preferences.fatFingerCap.value,
      layoutResets,
      transcript: stores.terminal.entries.value.map((e) => e.text),
    }),
  };
}

export type TestConsole = ReturnType<typeof createTestConsole>;
