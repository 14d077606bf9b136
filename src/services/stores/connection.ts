import { computed, signal, type ReadonlySignal } from '@preact/signals-core';
import type { Health } from '../../contracts/health';

export type ConnectionStatus = 'live' | 'connecting';

/** The live channels the header's indicator watches: the price socket and the signal stream. */
export type LiveChannel = 'prices' | 'signals';

/** Channels that must all be connected for the header to say "Live": the price socket and the signal stream. */
export const REQUIRED_CHANNELS: readonly LiveChannel[] = ['prices', 'signals'];

export interface ConnectionStore {
  readonly status: ReadonlySignal<ConnectionStatus>;
  /** The last health report the server sent, or null before the first answer. */
  readonly health: ReadonlySignal<Health | null>;
  /** The offline stand-ins the server says it is using (empty when unknown). */
  readonly standins: ReadonlySignal<readonly string[]>;
  /** What the server says is degraded right now ("market feed stalled"); empty when all is well. */
  readonly degraded: ReadonlySignal<readonly string[]>;
  /** The server answered a health check. */
  markAnswered(health: Health): void;
  /** The last health check got no usable answer. */
  markUnreachable(): void;
  /** Which live channels are connected right now. */
  readonly channels: ReadonlySignal<Readonly<Partial<Record<LiveChannel, boolean>>>>;
  /** True when every required channel is connected: the header's "Live". */
  readonly live: ReadonlySignal<boolean>;
  setChannel(channel: LiveChannel, connected: boolean): void;
}

export function createConnectionStore(required: readonly LiveChannel[] = REQUIRED_CHANNELS): ConnectionStore {
  const status = signal<ConnectionStatus>('connecting', { name: 'connection.status' });
  const health = signal<Health | null>(null, { name: 'connection.health' });
  const channels = signal<Partial<Record<LiveChannel, boolean>>>({}, { name: 'connection.channels' });
  return {
    channels,
    live: computed(() => required.every((c) => channels.value[c] === true), { name: 'connection.live' }),
    setChannel(channel, connected) {
      if (channels.peek()[channel] === connected) return;
      channels.value = { ...channels.peek(), [channel]: connected };
    },
    status,
    health,
    standins: computed(() => health.value?.standins ?? [], { name: 'connection.standins' }),
    degraded: computed(() => health.value?.degraded ?? [], { name: 'connection.degraded' }),
    markAnswered(next) {
      health.value = next;
      status.value = 'live';
    },
    markUnreachable() {
      status.value = 'connecting';
    },
  };
}
