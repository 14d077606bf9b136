import { computed, effect, signal, type ReadonlySignal } from '@preact/signals-core';
import type { SessionStore } from '../stores/session';
import type { Origin, Question, TerminalEntry, TerminalStore } from '../stores/terminal';
import type { UiStore } from '../stores/ui';
import { decodeKeys, type Key } from './keys';
import { applyAnswerKey, applyKey, emptyEditor, type EditorEffect } from './lineEditor';
import { muted, type OutputLine } from './output';
import {
  BELL,
  CLEAR_LINE,
  CLEAR_SCREEN,
  NEWLINE,
  coloredPrompt,
  formatOutput,
  renderEditLine,
  renderQuestion,
  type Prompt,
} from './render';

/** What the terminal needs from the command registry. */
export interface CommandLine {
  runLine(line: string): Promise<OutputLine[]>;
  complete(prefix: string): string[];
}

/** Where the session draws: an xterm instance in the browser, a string buffer in tests. */
export interface Screen {
  write(data: string): void;
}

export interface TerminalSession {
  /** Runs a line as if typed, recording it and its output in the transcript; answers the output. */
  execute(line: string, origin: Origin): Promise<OutputLine[]>;
  /** Draws the transcript and the prompt, then keeps the screen in step; returns the detacher. */
  attach(screen: Screen): () => void;
  /**
   * Raw terminal input (keys, escape sequences, pastes). Resolves once every key is handled and the
   * commands they started have finished or are waiting for an answer.
   */
  input(data: string): Promise<void>;
  /** The line being typed at the prompt (empty while a command runs or asks a question). */
  readonly draft: ReadonlySignal<string>;
  /** Stops listening to the terminal store. */
  dispose(): void;
}

export interface TerminalSessionDeps {
  commands: CommandLine;
  terminal: TerminalStore;
  prompt: ReadonlySignal<Prompt>;
}

/**
 * `guest@BTC/USDT`, or the user's name once signed in; `tag` (e.g. `PAPER`) is shown after the pair
 * while it is not null.
 */
export function promptSignal(
  session: SessionStore,
  ui: UiStore,
  tag?: ReadonlySignal<string | null>,
): ReadonlySignal<Prompt> {
  return computed(
    () => {
      const shown = tag?.value ?? null;
      return {
        user: session.user.value?.username ?? (session.isLoggedIn.value ? 'user' : 'guest'),
        symbol: ui.symbol.value,
        ...(shown === null ? {} : { tag: shown }),
      };
    },
    { name: 'terminal.prompt' },
  );
}

export const BANNER: readonly OutputLine[] = [muted('Signal Console. Type "help" to list commands.')];

function formatEntry(entry: TerminalEntry): string {
  return entry.kind === 'output' ? formatOutput(entry) : coloredPrompt(entry.prompt) + entry.text + NEWLINE;
}

export function createTerminalSession({ commands, terminal, prompt }: TerminalSessionDeps): TerminalSession {
  let state = emptyEditor();
  /** The answer being typed while a command asks a question. */
  let answer = emptyEditor();
  const screens = new Set<Screen>();
  let busy = false;
  const draft = signal('', { name: 'terminal.draft' });
  const queue: Key[] = [];
  const waiters: (() => void)[] = [];

  const write = (data: string): void => {
    for (const screen of screens) screen.write(data);
  };
  const editLine = (): string | null => {
    const question = terminal.question.peek();
    if (question !== null) return renderQuestion(question, answer);
    return busy ? null : renderEditLine(prompt.peek(), state);
  };
  const redraw = (): void => {
    const line = editLine();
    if (line !== null) write(line);
  };

  const execute = async (line: string, origin: Origin): Promise<OutputLine[]> => {
    const trimmed = line.trim();
    if (trimmed === '') return [];
    terminal.recordInput(prompt.peek(), trimmed, origin);
    const output = await commands.runLine(trimmed);
    terminal.print(output);
    return output;
  };

  /** Draws `line` as the finished prompt row, before the cursor leaves it. */
  const settle = (line: string): void =>
    write(renderEditLine(prompt.peek(), { ...state, buffer: line, cursor: line.length }));

  const handle = (effectItem: EditorEffect): void => {
    switch (effectItem.type) {
      case 'bell':
        write(BELL);
        return;
      case 'candidates':
        settle(state.buffer);
        write(NEWLINE + formatOutput(muted(effectItem.items.join('  '))));
        return;
      case 'interrupt':
        settle(effectItem.line);
        write('^C' + NEWLINE);
        return;
      case 'submit':
        settle(effectItem.line);
        write(NEWLINE);
        busy = true;
        void execute(effectItem.line, 'terminal').finally(() => {
          busy = false;
          pump();
        });
    }
  };

  /** A key typed while a command waits for an answer. */
  const answerKey = (question: Question, key: Key): void => {
    const result = applyAnswerKey(answer, key, question.secret);
    answer = result.state;
    for (const item of result.effects) {
      if (item.type === 'bell') write(BELL);
      else if (item.type === 'submit' || item.type === 'interrupt') {
        answer = emptyEditor();
        write(CLEAR_LINE);
        const cancelled = item.type === 'interrupt';
        terminal.answer(cancelled ? null : item.line);
        // The transcript keeps the question, and the answer only when it is not secret.
        const shown = question.secret || cancelled ? '' : item.line;
        terminal.print([muted(`${question.label}${shown}${cancelled ? '^C' : ''}`)]);
      }
    }
  };

  /** Idle: no key waiting, and no command running unless it waits for an answer. */
  const idle = (): boolean => queue.length === 0 && (!busy || terminal.question.peek() !== null);

  // Keys are handled strictly in order. While a command runs, keys wait for it, unless it asks a
  // question: then they answer it.
  const pump = (): void => {
    for (;;) {
      const question = terminal.question.peek();
      if (question === null && busy) break;
      const key = queue.shift();
      if (key === undefined) break;
      if (question !== null) {
        answerKey(question, key);
        continue;
      }
      const result = applyKey(state, key, (prefix) => commands.complete(prefix));
      state = result.state;
      for (const item of result.effects) handle(item);
    }
    draft.value = busy || terminal.question.peek() !== null ? '' : state.buffer;
    redraw();
    if (idle()) for (const done of waiters.splice(0)) done();
  };

  const input = (data: string): Promise<void> => {
    queue.push(...decodeKeys(data));
    const done = new Promise<void>((resolve) => waiters.push(resolve));
    pump();
    return done;
  };

  const stopQuestions = terminal.subscribe((event) => {
    if (event.type === 'question') pump();
  });

  // One subscription to the transcript and the prompt serves every attached screen.
  const follow = (): (() => void) => {
    const unsubscribe = terminal.subscribe((event) => {
      if (event.type === 'question') return; // `pump` redraws for questions.
      if (event.type === 'clear') {
        write(CLEAR_SCREEN);
      } else if (event.entry.kind === 'output' || event.entry.origin !== 'terminal') {
        // The line being edited is redrawn below the new entry.
        write(CLEAR_LINE + formatEntry(event.entry));
      } else {
        return; // A line typed here is already on screen.
      }
      redraw();
    });
    const stopPrompt = effect(() => {
      void prompt.value;
      redraw();
    });
    return () => {
      unsubscribe();
      stopPrompt();
    };
  };
  let unfollow: (() => void) | null = null;

  const attach = (screen: Screen): (() => void) => {
    for (const entry of terminal.entries.peek()) screen.write(formatEntry(entry));
    const line = editLine();
    if (line !== null) screen.write(line);
    screens.add(screen);
    unfollow ??= follow();
    return () => {
      screens.delete(screen);
      if (screens.size === 0 && unfollow !== null) {
        unfollow();
        unfollow = null;
      }
    };
  };

  return { execute, attach, input, draft, dispose: stopQuestions };
}
