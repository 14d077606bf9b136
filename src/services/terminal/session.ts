import { computed, effect, signal, type ReadonlySignal } from '@preact/signals-core';
import { every, type Clock } from '../clock';
import { memoryStorage } from '../storage';
import type { SessionStore } from '../stores/session';
import type { Origin, Question, TerminalEntry, TerminalStore } from '../stores/terminal';
import type { UiStore } from '../stores/ui';
import { createHistoryStore, type HistoryStore } from './history';
import { decodeKeys, type Key } from './keys';
import { applyAnswerKey, applyKey, emptyEditor, type Completer, type EditorEffect } from './lineEditor';
import { muted, type OutputLine } from './output';
import {
  BELL,
  CLEAR_SCREEN,
  NEWLINE,
  SPINNER_MS,
  coloredPrompt,
  formatOutput,
  renderEditLine,
  renderQuestion,
  renderSpinner,
  type Prompt,
} from './render';
import { createScreens, type Screen } from './screens';
import { padWrap, wrapLine } from './wrap';

/** What the terminal needs from the command registry. */
export interface CommandLine {
  /** Runs a line; `signal` is aborted when the person cancels it. */
  runLine(line: string, signal?: AbortSignal): Promise<OutputLine[]>;
  complete: Completer;
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
  /** Draws the transcript again, wrapped for the screens' width now (after a resize). */
  refresh(): void;
  /** Nothing typed, queued, running or asked: the prompt waits empty (`?` there opens the key map). */
  atEmptyPrompt(): boolean;
  /** Stops listening to the terminal store. */
  dispose(): void;
}

export interface TerminalSessionDeps {
  commands: CommandLine;
  terminal: TerminalStore;
  prompt: ReadonlySignal<Prompt>;
  /** The user's history; an in-memory one when not given. */
  history?: HistoryStore;
  /** Drives the spinner of a running command; no spinner without one. */
  clock?: Clock;
  /**
   * Called when a line is started: the first key typed (or recalled) into an empty prompt, or just
   * before a line from a button or the palette runs. The feed remembers its cards then.
   */
  onLineStart?: () => void;
}

/** `guest@BTC/USDT paper`: the user (or guest), the chosen pair and the venue orders go to. */
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

export const BANNER: readonly OutputLine[] = [
  muted('Signal Console. Type "help" to list commands, Tab to complete, Ctrl+K for the palette, ? for keys.'),
];

export const CANCELLED_LINE = muted('^C Cancelled.');

/** Said when keys typed before a question showed are kept out of its answer. */
export const TYPED_AHEAD_LINE = muted('Keys typed before this question were dropped: type the answer now.');

function formatEntry(entry: TerminalEntry, columns: number): string {
  return entry.kind === 'output'
    ? formatOutput(wrapLine(entry, columns))
    : coloredPrompt(entry.prompt) + entry.text + NEWLINE;
}

export function createTerminalSession(deps: TerminalSessionDeps): TerminalSession {
  const { commands, terminal, prompt, clock } = deps;
  const history = deps.history ?? createHistoryStore(memoryStorage(), signal('guest'));
  let state = emptyEditor();
  /** The answer being typed while a command asks a question. */
  let answer = emptyEditor();
  const drawn = createScreens();
  /** The command typed at the prompt that is running now. */
  let running: { controller: AbortController; stopSpinner: () => void } | null = null;
  const draft = signal('', { name: 'terminal.draft' });
  const queue: Key[] = [];
  const waiters: (() => void)[] = [];

  const { write, columns, erase, place } = drawn;
  const editLine = (): string | null => {
    const question = terminal.question.peek();
    if (question !== null) {
      return place(renderQuestion({ ...question, label: padWrap(question.label, columns()) }, answer));
    }
    return running !== null ? null : place(renderEditLine(prompt.peek(), state));
  };
  const redraw = (): void => {
    const top = erase();
    const line = editLine();
    if (line !== null) write(top + line);
  };

  const execute = async (line: string, origin: Origin, signal?: AbortSignal): Promise<OutputLine[]> => {
    const trimmed = line.trim();
    if (trimmed === '') return [];
    if (origin !== 'terminal') deps.onLineStart?.();
    terminal.recordInput(prompt.peek(), trimmed, origin);
    const output = await commands.runLine(trimmed, signal);
    if (signal?.aborted !== true) terminal.print(output);
    return output;
  };

  /** Draws `line` as the finished prompt row (then `after`), and leaves it for the row below. */
  const settle = (line: string, after = ''): void => {
    const top = erase();
    write(
      top + place(renderEditLine(prompt.peek(), { ...emptyEditor(), buffer: line, cursor: line.length })),
    );
    write(after + NEWLINE);
    drawn.atRowStart();
  };

  const spin = (): (() => void) => {
    if (clock === undefined) return () => undefined;
    let frame = 0;
    return every(clock, SPINNER_MS, () => {
      if (terminal.question.peek() === null) write(renderSpinner(frame++));
    });
  };

  const finish = (): void => {
    running?.stopSpinner();
    running = null;
  };

  const start = (line: string): void => {
    history.add(line);
    const controller = new AbortController();
    const current: { controller: AbortController; stopSpinner: () => void } = {
      controller,
      stopSpinner: () => undefined,
    };
    running = current;
    void execute(line, 'terminal', controller.signal).finally(() => {
      if (running !== current) return; // Cancelled: Ctrl+C already gave the prompt back.
      finish();
      write(erase());
      pump();
    });
    if (running === current) current.stopSpinner = spin();
  };

  /** Ctrl+C while a command runs: its calls are aborted, its output dropped, and the prompt is back. */
  const cancel = (): void => {
    const current = running;
    if (current === null) return;
    finish();
    current.controller.abort();
    terminal.answer(null);
    write(erase());
    terminal.print([CANCELLED_LINE]);
  };

  const handle = (effectItem: EditorEffect): void => {
    switch (effectItem.type) {
      case 'bell':
        write(BELL);
        return;
      case 'candidates':
        settle(state.buffer);
        write(formatOutput(wrapLine(muted(effectItem.items.join('  ')), columns())));
        return;
      case 'clear-screen':
        terminal.clear();
        return;
      case 'interrupt':
        settle(effectItem.line, '^C');
        return;
      case 'submit':
        settle(effectItem.line);
        if (effectItem.line.trim() !== '') start(effectItem.line);
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
        write(erase());
        const cancelled = item.type === 'interrupt';
        terminal.answer(cancelled ? null : item.line);
        // The transcript keeps the question, and the answer only when it is not secret.
        const shown = question.secret || cancelled ? '' : item.line;
        terminal.print([muted(`${question.label}${shown}${cancelled ? '^C' : ''}`)]);
      }
    }
  };

  /** Idle: no key waiting, and no command running unless it waits for an answer. */
  const idle = (): boolean => queue.length === 0 && (running === null || terminal.question.peek() !== null);

  // Keys are handled strictly in order. While a command runs, keys wait for it, unless it asks a
  // question (then they answer it) or one of them is Ctrl+C (then it cancels the command).
  const pump = (): void => {
    for (;;) {
      const question = terminal.question.peek();
      if (question === null && running !== null) {
        const stop = queue.findIndex((k) => k.type === 'interrupt');
        if (stop < 0) break;
        queue.splice(0, stop + 1);
        cancel();
        continue;
      }
      const key = queue.shift();
      if (key === undefined) break;
      if (question !== null) {
        answerKey(question, key);
        continue;
      }
      const result = applyKey({ ...state, history: history.lines.peek() }, key, commands.complete);
      if (state.buffer === '' && result.state.buffer !== '') deps.onLineStart?.();
      state = result.state;
      for (const item of result.effects) handle(item);
    }
    draft.value = running !== null || terminal.question.peek() !== null ? '' : state.buffer;
    redraw();
    if (idle()) for (const done of waiters.splice(0)) done();
  };

  const input = (data: string): Promise<void> => {
    queue.push(...decodeKeys(data));
    const done = new Promise<void>((resolve) => waiters.push(resolve));
    pump();
    return done;
  };

  /** The question on screen, to tell a new one from the same one shown with another label. */
  let asked: Question | null = null;
  /**
   * A question has just appeared: the keys still waiting were typed before it showed (type-ahead meant
   * for the next command), so none of them may become its answer, least of all a password. They are
   * dropped, all but a Ctrl+C, which still cancels.
   */
  const setAside = (): void => {
    const early = queue.splice(0);
    if (early.some((k) => k.type === 'interrupt')) queue.push({ type: 'interrupt' });
    else if (early.length > 0) terminal.print([TYPED_AHEAD_LINE]);
  };

  const stopQuestions = terminal.subscribe((event) => {
    if (event.type !== 'question') return;
    const fresh = event.question !== null && asked === null;
    asked = event.question;
    if (fresh) setAside();
    pump();
  });

  // One subscription to the transcript and the prompt serves every attached screen.
  const follow = (): (() => void) => {
    const unsubscribe = terminal.subscribe((event) => {
      if (event.type === 'question') return; // `pump` redraws for questions.
      if (event.type === 'clear') {
        write(CLEAR_SCREEN);
      } else if (event.entry.kind === 'output' || event.entry.origin !== 'terminal') {
        // The line being edited is redrawn below the new entry.
        write(erase() + formatEntry(event.entry, columns()));
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
    drawn.add(screen);
    const width = columns();
    for (const entry of terminal.entries.peek()) screen.write(formatEntry(entry, width));
    drawn.atRowStart();
    const line = editLine();
    if (line !== null) screen.write(line);
    unfollow ??= follow();
    return () => {
      if (drawn.remove(screen) === 0 && unfollow !== null) {
        unfollow();
        unfollow = null;
      }
    };
  };

  return {
    execute: (line, origin) => execute(line, origin),
    attach,
    refresh: () => {
      const width = columns();
      write(
        CLEAR_SCREEN +
          terminal.entries
            .peek()
            .map((entry) => formatEntry(entry, width))
            .join(''),
      );
      drawn.atRowStart();
      if (running !== null && terminal.question.peek() === null) return;
      const line = editLine();
      if (line !== null) write(line);
    },
    input,
    draft,
    atEmptyPrompt: () =>
      running === null &&
      queue.length === 0 &&
      terminal.question.peek() === null &&
      state.buffer === '' &&
      state.search === null,
    dispose: () => {
      stopQuestions();
      cancel();
    },
  };
}
