import { effect, untracked } from '@preact/signals-core';
import { SocketTicketResponse } from '../../contracts/auth';
import { PositionsMessage, exchangeSymbol, pairOf } from '../../contracts/trading';
import type { ApiClient } from '../api/client';
import { every, type Clock } from '../clock';
import { openJsonSocket, type JsonSocket, type WebSocketClass } from '../net/jsonSocket';
import type { SessionStore } from '../stores/session';
import { formatPrice } from './format';
import { TRADING_TEXT } from './messages';
import type { OpenOrdersStore } from './openOrdersStore';
import { fetchPositions } from './orders';
import type { PositionsStore } from './positionsStore';

/** docs/product.md §4 and §9: poll every 10 s while the socket is not live; the "ago" label moves every 10 s. */
export const POSITIONS_POLL_MS = 10_000;
export const AGO_TICK_MS = 10_000;
/**
 * Reconnects wait up to min(1000 · 2^n, 30000) ms before attempt n + 1 (docs/product.md §9), at random within
 * that (full jitter), and never stop: while the socket is down the pane is polled, and the socket keeps
 * trying to come back.
 */
export const RECONNECT = { firstDelayMs: 1_000, maxDelayMs: 30_000 } as const;

export interface PositionsChannelDeps {
  /** Absolute ws(s):// address of /api/ws/positions; a fresh single-use ticket is added as `?ticket=`. */
  url: string;
  WebSocket: WebSocketClass;
  session: SessionStore;
  positions: PositionsStore;
  /** The resting limit orders each snapshot carries (when the account's venue lists them). */
  openOrders?: OpenOrdersStore;
  trading: ApiClient;
  clock: Clock;
  /** The reconnect jitter's randomness (`Math.random`); tests pass a fixed one. */
  random?: () => number;
  /** Tells the user about a liquidation (the terminal prints it). */
  notify(text: string): void;
  /** Tells the user good news (a resting limit order filled); `notify` when absent. */
  inform?(text: string): void;
  /** An ask rule's proposal, or what became of one (the toast and the terminal's prompt). */
  onProposal?(message: Extract<PositionsMessage, { type: 'proposal' | 'proposal_closed' }>): void;
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

/**
 * The socket's address with a fresh ticket from `POST /ws/ticket`. Without one (signed out, server
 * down) the bare address, which the server refuses, so the socket retries later with a new ticket.
 */
async function ticketedUrl(url: string, trading: ApiClient): Promise<string> {
  const address = new URL(url);
  try {
    const { ticket } = await trading.call(SocketTicketResponse, '/ws/ticket', { method: 'POST' });
    address.searchParams.set('ticket', ticket);
  } catch {
    // Left bare: refused, then retried with back-off.
  }
  return address.href;
}

/**
 * The Open Positions pane's data (docs/product.md §4): loaded by request, then kept up by the positions socket,
 * which reconnects with back-off up to 5 times and is polled around while it is not live.
 */
export function createPositionsChannel(deps: PositionsChannelDeps): PositionsChannel {
  const { session, positions, clock } = deps;
  let socket: JsonSocket | null = null;
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

  const onMessage = (message: PositionsMessage): void => {
    if (message.type === 'snapshot') {
      sequence += 1;
      positions.setPositions(message.positions, clock.now());
      if (message.orders !== undefined) deps.openOrders?.setOrders(message.orders);
    } else if (message.type === 'liquidation') {
      deps.notify(
        TRADING_TEXT.liquidated(
          pairOf(exchangeSymbol(message.symbol)),
          formatPrice(message.symbol, message.price),
        ),
      );
    } else if (message.type === 'protection') {
      deps.notify(message.text);
    } else if (message.type === 'limit_filled') {
      (deps.inform ?? deps.notify)(message.text);
    } else {
      deps.onProposal?.(message);
    }
  };

  const closeSocket = (): void => {
    const ws = socket;
    socket = null;
    ws?.close();
    positions.setLive(false);
  };

  // A fresh socket per session token; each (re)connect asks for its own ticket.
  const openSocket = (): void => {
    closeSocket();
    const ws: JsonSocket = openJsonSocket({
      url: () => ticketedUrl(deps.url, deps.trading),
      WebSocket: deps.WebSocket,
      schema: PositionsMessage,
      minDelayMs: RECONNECT.firstDelayMs,
      maxDelayMs: RECONNECT.maxDelayMs,
      random: deps.random,
      onMessage: (message) => {
        if (socket === ws) onMessage(message);
      },
      onOpen: () => {
        if (socket === ws) positions.setLive(true);
      },
      onClose: () => {
        if (socket === ws) positions.setLive(false);
      },
    });
    socket = ws;
  };

  const onToken = (token: string | null, previous: string | null): void => {
    if (token === null) {
      sequence += 1; // Answers still on their way belong to the old session.
      closeSocket();
      positions.reset();
      deps.openOrders?.reset();
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
        // A live socket already pushes the snapshot after every change: one refresh, not two.
        untracked(() => {
          if (requests.force || !positions.live.value) void load();
        });
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
