import { effect, untracked } from '@preact/signals-core';
import ReconnectingWebSocket from 'reconnecting-websocket';
import { PositionsMessage, exchangeSymbol, pairOf } from '../../contracts/trading';
import type { ApiClient } from '../api/client';
import { every, type Clock } from '../clock';
import type { WebSocketClass } from '../market/priceChannel';
import type { SessionStore } from '../stores/session';
import { formatTradePrice } from './format';
import { TRADING_TEXT } from './messages';
import { fetchPositions } from './orders';
import type { PositionsStore } from './positionsStore';

/** Spec §4 and §9: poll every 10 s while the socket is not live; the "ago" label moves every 10 s. */
export const POSITIONS_POLL_MS = 10_000;
export const AGO_TICK_MS = 10_000;
/** Spec §9: reconnect at most 5 times, waiting min(1000 · 2^n, 30000) ms before attempt n + 1. */
export const RECONNECT = { firstDelayMs: 1_000, maxDelayMs: 30_000, attempts: 5 } as const;

export interface PositionsChannelDeps {
  /** Absolute ws(s):// address of /api/ws/positions; the access token is added as `?token=`. */
  url: string;
  WebSocket: WebSocketClass;
  session: SessionStore;
  positions: PositionsStore;
  trading: ApiClient;
  clock: Clock;
  /** Tells the user about a liquidation (the terminal prints it). */
  notify(text: string): void;
}

export interface PositionsChannel {
  /** Follows the session: loads and connects on login, reconnects on a new token, stops on logout. */
  start(): () => void;
  /** Asks `GET /positions` once and stores the answer (or "Failed to fetch positions."). */
  load(): Promise<void>;
}

/** Address of the positions socket for an API base (`/api` or absolute) seen from `pageUrl`. */
export function positionsSocketUrl(apiBase: string, pageUrl: string): string {
  const url = new URL(`${apiBase.replace(/\/+$/, '')}/ws/positions`, pageUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.href;
}

const withToken = (url: string, token: string): string => {
  const address = new URL(url);
  address.searchParams.set('token', token);
  return address.href;
};

/**
 * The Open Positions pane's data (spec §4): loaded by request, then kept up by the positions socket,
 * which reconnects with back-off up to 5 times and is polled around while it is not live.
 */
export function createPositionsChannel(deps: PositionsChannelDeps): PositionsChannel {
  const { session, positions, clock } = deps;
  let socket: ReconnectingWebSocket | null = null;
  /** Each load and each socket snapshot takes a number; a load answers only if nothing came after it. */
  let sequence = 0;

  const load = async (): Promise<void> => {
    if (session.getToken() === null) return;
    const mine = ++sequence;
    positions.setLoading();
    const answer = await fetchPositions(deps.trading);
    if (mine !== sequence || session.getToken() === null) return;
    if (answer.ok) positions.setPositions(answer.value, clock.now());
    else positions.setError(answer.message);
  };

  const onMessage = (text: string): void => {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return;
    }
    const parsed = PositionsMessage.safeParse(json);
    if (!parsed.success) return;
    const message = parsed.data;
    if (message.type === 'snapshot') {
      sequence += 1;
      positions.setPositions(message.positions, clock.now());
    } else {
      deps.notify(
        TRADING_TEXT.liquidated(pairOf(exchangeSymbol(message.symbol)), formatTradePrice(message.price)),
      );
    }
  };

  const closeSocket = (): void => {
    const ws = socket;
    socket = null;
    ws?.close();
    positions.setLive(false);
  };

  // A fresh socket each time: the URL carries the token of the moment, and the retry budget restarts
  // (reconnecting-websocket cannot be revived once its retries are spent).
  const openSocket = (): void => {
    closeSocket();
    const ws = new ReconnectingWebSocket(() => withToken(deps.url, session.getToken() ?? ''), [], {
      WebSocket: deps.WebSocket,
      minReconnectionDelay: RECONNECT.firstDelayMs,
      maxReconnectionDelay: RECONNECT.maxDelayMs,
      reconnectionDelayGrowFactor: 2,
      maxRetries: RECONNECT.attempts,
      minUptime: 5_000,
      connectionTimeout: 8_000,
    });
    socket = ws;
    ws.addEventListener('open', () => {
      if (socket === ws) positions.setLive(true);
    });
    ws.addEventListener('close', () => {
      if (socket === ws) positions.setLive(false);
    });
    ws.addEventListener('message', (event) => {
      if (socket === ws && typeof event.data === 'string') onMessage(event.data);
    });
  };

  const onToken = (token: string | null, previous: string | null): void => {
    if (token === null) {
      sequence += 1; // Answers still on their way belong to the old session.
      closeSocket();
      positions.reset();
    } else if (previous === null) {
      void load().finally(() => {
        if (session.getToken() !== null && socket === null) openSocket();
      });
    } else {
      openSocket(); // A refreshed token: reconnect with it.
    }
  };

  return {
    load,
    start() {
      let previous: string | null = null;
      const stopSession = effect(() => {
        const token = session.token.value;
        untracked(() => onToken(token, previous));
        previous = token;
      });

      let stopPolling: (() => void) | null = null;
      const stopPollingEffect = effect(() => {
        const wanted = session.isLoggedIn.value && !positions.live.value;
        if (wanted && stopPolling === null) stopPolling = every(clock, POSITIONS_POLL_MS, () => void load());
        if (!wanted && stopPolling !== null) {
          stopPolling();
          stopPolling = null;
        }
      });

      let seenRequests = positions.refreshRequests.peek();
      const stopRefreshes = effect(() => {
        const requests = positions.refreshRequests.value;
        if (requests === seenRequests) return;
        seenRequests = requests;
        untracked(() => void load());
      });

      const stopTicks = every(clock, AGO_TICK_MS, () => positions.tick(clock.now()));

      return () => {
        stopSession();
        stopPollingEffect();
        stopPolling?.();
        stopRefreshes();
        stopTicks();
        closeSocket();
      };
    },
  };
}
