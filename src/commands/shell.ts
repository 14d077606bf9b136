import { computed, signal, type ReadonlySignal } from '@preact/signals-core';
import {
  STORAGE_PREFIX,
  isStringRecord,
  memoryStorage,
  readJson,
  writeJson,
  type StoragePort,
} from '../services/storage';

/** The user's aliases (`alias b="btc long"`), kept per user. */
export interface AliasStore {
  readonly all: ReadonlySignal<Readonly<Record<string, string>>>;
  set(name: string, expansion: string): void;
  /** False when there was no such alias. */
  remove(name: string): boolean;
}

/** Orders above this many USDT ask for confirmation first (the fat-finger cap). */
export const DEFAULT_FAT_FINGER_CAP = 25_000;

export interface Preferences {
  readonly fatFingerCap: ReadonlySignal<number>;
  setFatFingerCap(usdt: number): void;
}

/** The browser's pane layout, which `layout reset` puts back to its defaults. */
export interface LayoutPort {
  reset(): void;
}

/** What commands reach beyond the stores: aliases, preferences and the layout (null in the CLI). */
export interface Shell {
  aliases: AliasStore;
  preferences: Preferences;
  layout: LayoutPort | null;
}

export interface ShellDeps {
  storage?: StoragePort;
  /** The user the aliases belong to (`guest` when logged out). */
  user?: ReadonlySignal<string>;
  layout?: LayoutPort | null;
}

const aliasKey = (user: string): string => `${STORAGE_PREFIX}aliases.${user}`;
export const PREFERENCES_KEY = `${STORAGE_PREFIX}preferences`;

const isPreferences = (v: unknown): v is { fatFingerCap: number } =>
  typeof v === 'object' &&
  v !== null &&
  'fatFingerCap' in v &&
  typeof v.fatFingerCap === 'number' &&
  v.fatFingerCap > 0;

export function createShell({
  storage = memoryStorage(),
  user = signal('guest'),
  layout = null,
}: ShellDeps = {}): Shell {
  // Bumped on every write, so the stored aliases are read again (for the current user).
  const writes = signal(0, { name: 'shell.aliasWrites' });
  const all = computed(
    () => {
      void writes.value;
      return readJson(storage, aliasKey(user.value), isStringRecord, {});
    },
    { name: 'shell.aliases' },
  );
  const save = (next: Record<string, string>): void => {
    writeJson(storage, aliasKey(user.peek()), next);
    writes.value += 1;
  };
  const fatFingerCap = signal(
    readJson(storage, PREFERENCES_KEY, isPreferences, { fatFingerCap: DEFAULT_FAT_FINGER_CAP }).fatFingerCap,
    { name: 'shell.fatFingerCap' },
  );
  return {
    aliases: {
      all,
      set(name, expansion) {
        save({ ...all.peek(), [name]: expansion });
      },
      remove(name) {
        const current = all.peek();
        if (!Object.hasOwn(current, name)) return false;
        save(Object.fromEntries(Object.entries(current).filter(([n]) => n !== name)));
        return true;
      },
    },
    preferences: {
      fatFingerCap,
      setFatFingerCap(usdt) {
        fatFingerCap.value = usdt;
        writeJson(storage, PREFERENCES_KEY, { fatFingerCap: usdt });
      },
    },
    layout,
  };
}
