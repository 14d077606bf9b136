import type { StoragePort } from '../services/storage';

/** The browser's localStorage behind the core's storage port; a blocked storage acts as empty. */
export function browserStorage(): StoragePort {
  const store = ((): Storage | null => {
    try {
      return window.localStorage;
    } catch {
      return null;
    }
  })();
  return {
    get: (key) => store?.getItem(key) ?? null,
    set: (key, value) => store?.setItem(key, value),
    remove: (key) => store?.removeItem(key),
  };
}
