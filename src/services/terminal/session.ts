import { computed, effect, type ReadonlySignal } from '@preact/signals-core';
import type { SessionStore } from '../stores/session';
import type { TerminalEntry, TerminalStore, Origin } from '../stores/terminal';
import type { UiStore } from '../stores/ui';
import { decodeKeys, type Key } from './keys';
import { applyKey, emptyEditor, type EditorEffect } from './lineEditor';
import { muted, type OutputLine } from './output';
import {
  BELL,
  CLEAR_LINE,
  CLEAR_SCREEN,
  NEWLINE,
  coloredPrompt,
  formatOutput,
  renderEditLine,
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
  /** Raw terminal input (keys, escape sequences, pastes). Resolves once every key is handled. */
  input(data: string): Promise<void>;
}

export interface TerminalSessionDeps {
  commands: CommandLine;
  terminal: TerminalStore;
  prompt: ReadonlySignal<Prompt>;
}

/** `guest@BTC/USDT`, or the user's name once signed in. */
export function promptSignal(session: SessionStore, ui: UiStore): ReadonlySignal<Prompt> {
  return computed(
    () => ({
      user: session.user.value?.username ?? (session.isLoggedIn.value ? 'user' : 'guest'),
      symbol: ui.symbol.value,
    }),
    { name: 'terminal.prompt' },
  );
}

export const BANNER: readonly OutputLine[] = [muted('Signal Console. Type "help" to list commands.')];

function formatEntry(entry: TerminalEntry): string {
  return entry.kind === 'output' ? formatOutput(entry) : coloredPrompt(entry.prompt) + entry.text + NEWLINE;
}

export function createTerminalSession({ commands, terminal, prompt }: TerminalSessionDeps): TerminalSession {
  let state = emptyEditor();
  const screens = new Set<Screen>();
  let busy = false;
  const queue: Key[] = [];
  let draining = false;
  let drained: Promise<void> = Promise.resolve();

  const write = (data: string): void => {
    for (const screen of screens) screen.write(data);
  };
  const redraw = (): void => {
    if (!busy) write(renderEditLine(prompt.peek(), state));
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

  const handle = async (effectItem: EditorEffect): Promise<void> => {
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
        try {
          await execute(effectItem.line, 'terminal');
        } finally {
          busy = false;
        }
    }
  };

  // Keys are handled strictly in order; keys that arrive while a command runs wait for it.
  const drain = async (): Promise<void> => {
    draining = true;
    try {
      for (let key = queue.shift(); key !== undefined; key = queue.shift()) {
        const result = applyKey(state, key, (prefix) => commands.complete(prefix));
        state = result.state;
        for (const item of result.effects) await handle(item);
      }
      redraw();
    } finally {
      draining = false;
    }
  };

  const input = (data: string): Promise<void> => {
    queue.push(...decodeKeys(data));
    if (!draining) drained = drain();
    return drained;
  };

  // One subscription to the transcript and the prompt serves every attached screen.
  const follow = (): (() => void) => {
    const unsubscribe = terminal.subscribe((event) => {
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
    if (!busy) screen.write(renderEditLine(prompt.peek(), state));
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

  return { execute, attach, input };
}
