import { computed, signal, type ReadonlySignal } from '@preact/signals-core';
import { STORAGE_PREFIX, isStringArray, readJson, writeJson, type StoragePort } from '../storage';
import { HISTORY_LIMIT, remember } from './lineEditor';

/** The lines a user ran, oldest first, kept in storage per user (at most {@link HISTORY_LIMIT}). */
export interface HistoryStore {
  readonly lines: ReadonlySignal<readonly string[]>;
  add(line: string): void;
}

export const historyKey = (user: string): string => `${STORAGE_PREFIX}history.${user}`;

export function createHistoryStore(storage: StoragePort, user: ReadonlySignal<string>): HistoryStore {
  // Bumped on every write so the stored list is read again; a change of user reads that user's list.
  const writes = signal(0, { name: 'terminal.historyWrites' });
  const lines = computed(
    () => {
      void writes.value;
      return readJson(storage, historyKey(user.value), isStringArray, []).slice(-HISTORY_LIMIT);
    },
    { name: 'terminal.history' },
  );
  return {
    lines,
    add(line) {
      const next = remember(lines.peek(), line);
      if (next === lines.peek()) return;
      writeJson(storage, historyKey(user.peek()), next);
      writes.value += 1;
    },
  };
}
