import { computed, signal, type ReadonlySignal } from '@preact/signals-core';
import type { Health } from '../../contracts/health';

export type ConnectionStatus = 'live' | 'connecting';

export interface ConnectionStore {
  readonly status: ReadonlySignal<ConnectionStatus>;
  /** The last health report the server sent, or null before the first answer. */
  readonly health: ReadonlySignal<Health | null>;
  /** The offline stand-ins the server says it is using (empty when unknown). */
  readonly standins: ReadonlySignal<readonly string[]>;
  /** The server answered a health check. */
  markAnswered(health: Health): void;
  /** The last health check got no usable answer. */
  markUnreachable(): void;
}

export function createConnectionStore(): ConnectionStore {
  const status = signal<ConnectionStatus>('connecting', { name: 'connection.status' });
  const health = signal<Health | null>(null, { name: 'connection.health' });
  return {
    status,
    health,
    standins: computed(() => health.value?.standins ?? [], { name: 'connection.standins' }),
    markAnswered(next) {
      health.value = next;
      status.value = 'live';
    },
    markUnreachable() {
      status.value = 'connecting';
    },
  };
}
