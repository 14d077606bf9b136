import { signal, type ReadonlySignal } from '@preact/signals-core';
import type { OutputLine } from '../terminal/output';
import type { Prompt } from '../terminal/render';

/** Where a typed line came from: the command line itself, or a control elsewhere (a button, the search box). */
export type Origin = 'terminal' | 'ui';

/** One entry of the terminal transcript: a line someone ran, or a line of output. */
export type TerminalEntry =
  | { id: number; kind: 'input'; prompt: Prompt; text: string; origin: Origin }
  | ({ id: number; kind: 'output' } & OutputLine);

export type TerminalEvent = { type: 'entry'; entry: TerminalEntry } | { type: 'clear' };

/** Lines kept for the transcript (and the screen-reader log). */
export const TRANSCRIPT_LIMIT = 200;

export interface TerminalStore {
  /** The last {@link TRANSCRIPT_LIMIT} entries, oldest first. */
  readonly entries: ReadonlySignal<readonly TerminalEntry[]>;
  recordInput(prompt: Prompt, text: string, origin: Origin): void;
  print(lines: readonly OutputLine[]): void;
  clear(): void;
  /** Hears each new entry and each clear; returns the disposer. */
  subscribe(listener: (event: TerminalEvent) => void): () => void;
}

export function createTerminalStore(): TerminalStore {
  const entries = signal<readonly TerminalEntry[]>([], { name: 'terminal.entries' });
  const listeners = new Set<(event: TerminalEvent) => void>();
  let nextId = 1;

  const emit = (event: TerminalEvent): void => {
    for (const listener of [...listeners]) listener(event);
  };
  const append = (added: TerminalEntry[]): void => {
    if (added.length === 0) return;
    entries.value = [...entries.peek(), ...added].slice(-TRANSCRIPT_LIMIT);
    for (const entry of added) emit({ type: 'entry', entry });
  };

  return {
    entries,
    recordInput(prompt, text, origin) {
      append([{ id: nextId++, kind: 'input', prompt, text, origin }]);
    },
    print(lines) {
      append(lines.map((line) => ({ ...line, id: nextId++, kind: 'output' as const })));
    },
    clear() {
      entries.value = [];
      emit({ type: 'clear' });
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}
