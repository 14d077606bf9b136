import { signal, type ReadonlySignal } from '@preact/signals-core';
import type { OpenOrder } from '../../contracts/trading';
import type { ApiClient } from '../api/client';
import { cancelOpenOrder, cancelOpenOrders, fetchOpenOrders } from './openOrders';

export type OpenOrdersLoad =
  { status: 'idle' } | { status: 'loading' } | { status: 'ready' } | { status: 'error'; message: string };

/** The Open Orders tab's data: the positions socket's latest list, or the last `GET /orders/open`. */
export interface OpenOrdersStore {
  readonly orders: ReadonlySignal<readonly OpenOrder[]>;
  readonly load: ReadonlySignal<OpenOrdersLoad>;
  /** Order ids with a cancel in flight ('*' while Cancel all runs): their buttons are disabled. */
  readonly cancelling: ReadonlySignal<ReadonlySet<string>>;
  /** The last cancel's failure, in words; null once one succeeds. */
  readonly problem: ReadonlySignal<string | null>;
  setOrders(orders: readonly OpenOrder[]): void;
  /** Asks `GET /orders/open` (after a command, or when the tab opens without a live socket). */
  refresh(trading: ApiClient): Promise<void>;
  cancel(trading: ApiClient, id: string): Promise<void>;
  cancelAll(trading: ApiClient): Promise<void>;
  reset(): void;
}

export function createOpenOrdersStore(): OpenOrdersStore {
  const orders = signal<readonly OpenOrder[]>([], { name: 'openOrders.orders' });
  const load = signal<OpenOrdersLoad>({ status: 'idle' }, { name: 'openOrders.load' });
  const cancelling = signal<ReadonlySet<string>>(new Set(), { name: 'openOrders.cancelling' });
  const problem = signal<string | null>(null, { name: 'openOrders.problem' });
  /** Each refresh and each pushed list takes a number; a refresh answers only if nothing came after it. */
  let sequence = 0;

  const mark = (id: string, on: boolean) => {
    const next = new Set(cancelling.peek());
    if (on) next.add(id);
    else next.delete(id);
    cancelling.value = next;
  };
  const store: OpenOrdersStore = {
    orders,
    load,
    cancelling,
    problem,
    setOrders(next) {
      sequence += 1;
      orders.value = next;
      load.value = { status: 'ready' };
    },
    async refresh(trading) {
      const mine = ++sequence;
      if (load.peek().status !== 'ready') load.value = { status: 'loading' };
      const answer = await fetchOpenOrders(trading);
      if (mine !== sequence) return;
      if (answer.ok) {
        orders.value = answer.value;
        load.value = { status: 'ready' };
      } else {
        load.value = { status: 'error', message: answer.message };
      }
    },
    async cancel(trading, id) {
      mark(id, true);
      const answer = await cancelOpenOrder(trading, id);
      mark(id, false);
      problem.value = answer.ok ? null : answer.message;
      if (answer.ok) orders.value = orders.peek().filter((o) => o.id !== id);
    },
    async cancelAll(trading) {
      mark('*', true);
      const answer = await cancelOpenOrders(trading);
      mark('*', false);
      if (!answer.ok) {
        problem.value = answer.message;
        return;
      }
      const gone = new Set(answer.value.cancelled.map((o) => o.id));
      orders.value = orders.peek().filter((o) => !gone.has(o.id));
      problem.value = answer.value.failed[0]?.detail ?? null;
    },
    reset() {
      sequence += 1;
      orders.value = [];
      load.value = { status: 'idle' };
      cancelling.value = new Set();
      problem.value = null;
    },
  };
  return store;
}
