import { createConnectionStore, type ConnectionStore } from './connection';
import { createSessionStore, type SessionStore } from './session';
import { createTerminalStore, type TerminalStore } from './terminal';
import { createUiStore, type UiStore } from './ui';

export interface Stores {
  session: SessionStore;
  ui: UiStore;
  connection: ConnectionStore;
  terminal: TerminalStore;
}

export function createStores(): Stores {
  return {
    session: createSessionStore(),
    ui: createUiStore(),
    connection: createConnectionStore(),
    terminal: createTerminalStore(),
  };
}
