import type { BusEventMap, BusTopic } from '../../../src/contracts/events';
import { HandlerTable, type Bus, type BusHandler, type Disposer } from './bus';

/** The default bus: in this process only. Each publish is delivered on a later microtask. */
export class MemoryBus implements Bus {
  readonly kind = 'memory' as const;
  private readonly table: HandlerTable;
  private closed = false;

  constructor(onHandlerError: (topic: BusTopic, err: unknown) => void = () => {}) {
    this.table = new HandlerTable(onHandlerError);
  }

  async publish<K extends BusTopic>(topic: K, payload: BusEventMap[K]): Promise<void> {
    if (this.closed) return;
    queueMicrotask(() => this.table.deliver(topic, payload));
  }

  subscribe<K extends BusTopic>(topic: K, handler: BusHandler<K>): Disposer {
    return this.table.add(topic, handler);
  }

  healthy(): boolean {
    return !this.closed;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.table.clear();
  }
}
