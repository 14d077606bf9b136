import { computed, signal, type ReadonlySignal } from '@preact/signals-core';
import type { Position } from '../../contracts/trading';
import { updatedLabel } from './format';

/** What the Open Positions pane shows; written by the positions channel and the trading actions only. */
export type PositionsLoad =
  { status: 'idle' } | { status: 'loading' } | { status: 'ready' } | { status: 'error'; message: string };

export interface PositionsStore {
  /** The open positions, as the last snapshot or request gave them. */
  readonly positions: ReadonlySignal<readonly Position[]>;
  readonly load: ReadonlySignal<PositionsLoad>;
  /** True while the positions socket is open: the pane's "Live". */
  readonly live: ReadonlySignal<boolean>;
  /** When the positions were last received (client clock, ms), or null before the first time. */
  readonly updatedAt: ReadonlySignal<number | null>;
  /** The clock as of the last tick (every 10 s) or update; drives the "ago" label. */
  readonly now: ReadonlySignal<number>;
  /** "Updated 12s ago", or null before the first update. */
  readonly updatedText: ReadonlySignal<string | null>;
  /** Symbols with a close request in flight (their Close buttons are disabled). */
  readonly closing: ReadonlySignal<ReadonlySet<string>>;
  /**
   * Bumped when someone wants a fresh load: after an order or a close (skipped while the socket is
   * live, as it pushes the new snapshot itself) or by the Refresh button (`force`: always loads).
   */
  readonly refreshRequests: ReadonlySignal<{ count: number; force: boolean }>;
  setLoading(): void;
  setPositions(positions: readonly Position[], at: number): void;
  setError(message: string): void;
  setLive(live: boolean): void;
  tick(now: number): void;
  setClosing(symbol: string, closing: boolean): void;
  requestRefresh(force?: boolean): void;
  /** Forgets everything (on logout). */
  reset(): void;
}

export function createPositionsStore(): PositionsStore {
  const positions = signal<readonly Position[]>([], { name: 'positions.positions' });
  const load = signal<PositionsLoad>({ status: 'idle' }, { name: 'positions.load' });
  const live = signal(false, { name: 'positions.live' });
  const updatedAt = signal<number | null>(null, { name: 'positions.updatedAt' });
  const now = signal(0, { name: 'positions.now' });
  const closing = signal<ReadonlySet<string>>(new Set(), { name: 'positions.closing' });
  const refreshRequests = signal({ count: 0, force: false }, { name: 'positions.refreshRequests' });
  return {
    positions,
    load,
    live,
    updatedAt,
    now,
    updatedText: computed(() => updatedLabel(updatedAt.value, now.value), { name: 'positions.updatedText' }),
    closing,
    refreshRequests,
    setLoading() {
      if (load.peek().status !== 'ready') load.value = { status: 'loading' };
    },
    setPositions(next, at) {
      positions.value = next;
      load.value = { status: 'ready' };
      updatedAt.value = at;
      now.value = at;
    },
    setError(message) {
      load.value = { status: 'error', message };
    },
    setLive(next) {
      live.value = next;
    },
    tick(at) {
      now.value = at;
    },
    setClosing(symbol, on) {
      const next = new Set(closing.peek());
      if (on) next.add(symbol);
      else next.delete(symbol);
      closing.value = next;
    },
    requestRefresh(force = false) {
      refreshRequests.value = { count: refreshRequests.peek().count + 1, force };
    },
    reset() {
      positions.value = [];
      load.value = { status: 'idle' };
      live.value = false;
      updatedAt.value = null;
      closing.value = new Set();
    },
  };
}
