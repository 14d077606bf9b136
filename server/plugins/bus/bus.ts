import type { BusEventMap, BusTopic } from '../../../src/contracts/events';

export type Disposer = () => void;
export type BusHandler<K extends BusTopic> = (payload: BusEventMap[K]) => void | Promise<void>;

/**
 * A typed publish/subscribe bus. Publishers and subscribers see only this interface, so the in-process
 * implementation and the Redis one are interchangeable. Delivery is at-most-once and asynchronous: a
 * handler never runs inside `publish`, and a throwing handler never affects the publisher or the others.
 */
export interface Bus {
  readonly kind: 'memory' | 'redis';
  publish<K extends BusTopic>(topic: K, payload: BusEventMap[K]): Promise<void>;
  subscribe<K extends BusTopic>(topic: K, handler: BusHandler<K>): Disposer;
  /** True when the bus can currently deliver (always for memory; the connection state for Redis). */
  healthy(): boolean;
  close(): Promise<void>;
}

/** Handler bookkeeping shared by both implementations. */
export class HandlerTable {
  private readonly handlers = new Map<BusTopic, Set<(payload: unknown) => void | Promise<void>>>();

  constructor(private readonly onHandlerError: (topic: BusTopic, err: unknown) => void) {}

  add<K extends BusTopic>(topic: K, handler: BusHandler<K>): Disposer {
    let set = this.handlers.get(topic);
    if (!set) {
      set = new Set();
      this.handlers.set(topic, set);
    }
    const h = handler as (payload: unknown) => void | Promise<void>;
    set.add(h);
    return () => {
      set.delete(h);
    };
  }

  count(topic: BusTopic): number {
    return this.handlers.get(topic)?.size ?? 0;
  }

  deliver(topic: BusTopic, payload: unknown): void {
    const set = this.handlers.get(topic);
    if (!set) return;
    for (const handler of [...set]) {
      try {
        const result = handler(payload);
        if (result instanceof Promise) result.catch((err: unknown) => this.onHandlerError(topic, err));
      } catch (err) {
        this.onHandlerError(topic, err);
      }
    }
  }

  clear(): void {
    this.handlers.clear();
  }
}
