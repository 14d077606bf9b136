import { signal, type ReadonlySignal } from '@preact/signals-core';
import type { OutputLine } from '../terminal/output';
import type { Question } from '../terminal/question';
import type { Prompt } from '../terminal/render';

/** Where a typed line came from: the command line itself, or a control elsewhere (a button, the search box). */
export type Origin = 'terminal' | 'ui';

/** One entry of the terminal transcript: a line someone ran, or a line of output. */
export type TerminalEntry =
  | { id: number; kind: 'input'; prompt: Prompt; text: string; origin: Origin }
  | ({ id: number; kind: 'output' } & OutputLine);

export type { Question } from '../terminal/question';

export type TerminalEvent =
  | { type: 'entry'; entry: TerminalEntry }
  | { type: 'clear' }
  | { type: 'question'; question: Question | null };

/** Lines kept for the transcript (and the screen-reader log). */
export const TRANSCRIPT_LIMIT = 200;

export interface TerminalStore {
  /** The last {@link TRANSCRIPT_LIMIT} entries, oldest first. */
  readonly entries: ReadonlySignal<readonly TerminalEntry[]>;
  recordInput(prompt: Prompt, text: string, origin: Origin): void;
  print(lines: readonly OutputLine[]): void;
  clear(): void;
  /** The question waiting for an answer, if any. */
  readonly question: ReadonlySignal<Question | null>;
  /**
   * Asks the person at the terminal and resolves to the answer, or to null when it is cancelled (Ctrl+C,
   * or another question asked over it).
   */
  ask(question: Question): Promise<string | null>;
  /** Shows the pending question with another label (a countdown in it); does nothing when none is pending. */
  relabel(label: string): void;
  /** Answers the pending question (null cancels it); does nothing when none is pending. */
  answer(text: string | null): void;
  /** Hears each new entry, each clear and each question asked or settled; returns the disposer. */
  subscribe(listener: (event: TerminalEvent) => void): () => void;
}

export function createTerminalStore(): TerminalStore {
  const entries = signal<readonly TerminalEntry[]>([], { name: 'terminal.entries' });
  const listeners = new Set<(event: TerminalEvent) => void>();
  const question = signal<Question | null>(null, { name: 'terminal.question' });
  let settle: ((answer: string | null) => void) | null = null;
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
    question,
    ask(next) {
      settle?.(null);
      return new Promise<string | null>((resolve) => {
        settle = (answer) => {
          settle = null;
          question.value = null;
          emit({ type: 'question', question: null });
          resolve(answer);
        };
        question.value = next;
        emit({ type: 'question', question: next });
      });
    },
    relabel(label) {
      const pending = question.peek();
      if (pending === null || settle === null) return;
      const next = { ...pending, label };
      question.value = next;
      emit({ type: 'question', question: next });
    },
    answer(text) {
      settle?.(text);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}
