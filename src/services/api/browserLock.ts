/** What the lock needs from the Web Locks API (`navigator.locks`). */
export interface LockManagerLike {
  request<T>(name: string, callback: () => Promise<T>): Promise<T>;
}

/** What the fallback needs from `localStorage`. */
export interface StorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export interface BrowserLockDeps {
  locks?: LockManagerLike | undefined;
  storage?: StorageLike | undefined;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** A storage lease older than this is taken over (its tab died holding it). */
export const LEASE_MS = 10_000;
const POLL_MS = 50;

/**
 * Runs `work` while holding a lock shared by every tab of this browser: the Web Locks API where there is
 * one, else a lease in localStorage (claimed, then read back to see who won; a held lease is waited out), else no lock at all.
 */
export async function withBrowserLock<T>(
  name: string,
  work: () => Promise<T>,
  deps: BrowserLockDeps,
): Promise<T> {
  if (deps.locks !== undefined) return deps.locks.request(name, work);
  const storage = deps.storage;
  if (storage === undefined) return work();
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const me = `${now()}-${Math.random().toString(36).slice(2)}`;
  const key = `lock:${name}`;
  for (;;) {
    const held = parseLease(storage.getItem(key));
    if (held === null || held.until < now()) {
      storage.setItem(key, JSON.stringify({ owner: me, until: now() + LEASE_MS }));
      if (parseLease(storage.getItem(key))?.owner === me) break;
    }
    await sleep(POLL_MS);
  }
  try {
    return await work();
  } finally {
    if (parseLease(storage.getItem(key))?.owner === me) storage.removeItem(key);
  }
}

function parseLease(text: string | null): { owner: string; until: number } | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as { owner?: unknown; until?: unknown };
    return typeof value.owner === 'string' && typeof value.until === 'number'
      ? { owner: value.owner, until: value.until }
      : null;
  } catch {
    return null;
  }
}

/** The browser's own lock manager and storage, where they exist. */
export function browserLockDeps(): BrowserLockDeps {
  const scope = globalThis as { navigator?: { locks?: LockManagerLike }; localStorage?: StorageLike };
  const nav = scope.navigator;
  let storage: StorageLike | undefined;
  try {
    storage = scope.localStorage;
  } catch {
    storage = undefined;
  }
  return { locks: nav?.locks, storage };
}
