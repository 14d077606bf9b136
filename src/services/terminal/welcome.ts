import { computed, signal, type ReadonlySignal } from '@preact/signals-core';
import { STORAGE_PREFIX, type StoragePort } from '../storage';

/** The first visit's greeting in the terminal pane: three lines to run and what logging in unlocks. */
export const WELCOME_TEXT = {
  title: 'Welcome. News lands on the left, analysed; this command line runs everything. Try:',
  tries: [
    { line: 'feed --min 70', what: 'the strongest signals now' },
    { line: 'price btc', what: "Bitcoin's last price" },
    { line: 'help', what: 'every command' },
  ],
  unlocks:
    'Log in to trade futures (paper first) from here, from a card or the trade panel, and to keep a ' +
    'watchlist, alerts and auto-trade rules.',
  dismiss: 'Hide the welcome',
} as const;

const KEY = `${STORAGE_PREFIX}welcomed`;

export interface Welcome {
  /** Shown to a visitor who has not dismissed it nor logged in on this browser. */
  readonly visible: ReadonlySignal<boolean>;
  /** Runs one of the lines it offers (through the terminal, so it is in the transcript). */
  run(line: string): Promise<void>;
  dismiss(): void;
}

export interface WelcomeDeps {
  storage: StoragePort;
  loggedIn: ReadonlySignal<boolean>;
  execute: (line: string) => Promise<unknown>;
}

export function createWelcome({ storage, loggedIn, execute }: WelcomeDeps): Welcome {
  const dismissed = signal(storage.get(KEY) !== null, { name: 'welcome.dismissed' });
  const dismiss = (): void => {
    storage.set(KEY, '1');
    dismissed.value = true;
  };
  const visible = computed(() => !dismissed.value && !loggedIn.value, { name: 'welcome.visible' });
  return {
    visible,
    async run(line) {
      await execute(line);
    },
    dismiss,
  };
}
