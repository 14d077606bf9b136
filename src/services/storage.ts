/**
 * Key-value storage injected into the core (localStorage in the browser, a Map in tests and the CLI),
 * so that nothing under src/services touches the DOM's storage directly.
 */
export interface StoragePort {
  get(key: string): string | null;
  set(key: string, value: string): void;
  remove(key: string): void;
}

/** A storage that lives as long as the process (tests, the CLI). */
export function memoryStorage(initial: Record<string, string> = {}): StoragePort & { keys(): string[] } {
  const map = new Map(Object.entries(initial));
  return {
    get: (key) => map.get(key) ?? null,
    set: (key, value) => void map.set(key, value),
    remove: (key) => void map.delete(key),
    keys: () => [...map.keys()],
  };
}

/** Every key this app writes starts with this. */
export const STORAGE_PREFIX = 'signal-console.';

/** Reads a JSON value, answering `fallback` when it is missing, unreadable or rejected by `accept`. */
export function readJson<T>(
  storage: StoragePort,
  key: string,
  accept: (value: unknown) => value is T,
  fallback: T,
): T {
  const text = storage.get(key);
  if (text === null) return fallback;
  try {
    const value: unknown = JSON.parse(text);
    return accept(value) ? value : fallback;
  } catch {
    return fallback;
  }
}

/** Writes a JSON value; a full or refused storage is ignored (the value stays in memory). */
export function writeJson(storage: StoragePort, key: string, value: unknown): void {
  try {
    storage.set(key, JSON.stringify(value));
  } catch {
    // Quota exceeded or storage disabled: keep going without persistence.
  }
}

export const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((v) => typeof v === 'string');

export const isStringRecord = (value: unknown): value is Record<string, string> =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.values(value).every((v) => typeof v === 'string');
