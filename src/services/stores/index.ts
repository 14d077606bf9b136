import { createPositionsStore, type PositionsStore } from '../trading/positionsStore';
import { createAuthStore, type AuthStore } from './auth';
import { createConnectionStore, type ConnectionStore } from './connection';
import { createMarketStore, type MarketStore } from './market';
import { createSessionStore, type SessionStore } from './session';
import { createTerminalStore, type TerminalStore } from './terminal';
import { createUiStore, type UiStore } from './ui';

export interface Stores {
  session: SessionStore;
  ui: UiStore;
  connection: ConnectionStore;
  terminal: TerminalStore;
  auth: AuthStore;
  market: MarketStore;
  positions: PositionsStore;
}

export function createStores(): Stores {
  return {
    session: createSessionStore(),
    ui: createUiStore(),
    connection: createConnectionStore(),
    terminal: createTerminalStore(),
    auth: createAuthStore(),
    market: createMarketStore(),
    positions: createPositionsStore(),
  };
}
