import { signal, type ReadonlySignal } from '@preact/signals-core';
import { Signal, StreamStatus } from '../../contracts/signals';
import type { Disposer } from '../clock';
import type { ConnectionStore } from '../stores/connection';
import type { FeedChange, FeedStore } from './feedStore';

/** What the transport reports: the connection opened or dropped, or one SSE frame arrived. */
export interface StreamHandlers {
  open(): void;
  error(): void;
  message(event: string, data: string): void;
}

/**
 * The SSE transport, injected: in the app a SharedWorker holding one EventSource for every tab (a
 * plain EventSource where SharedWorker is missing); in tests a fake. Reconnecting (with
 * `Last-Event-ID`) is the transport's job.
 */
export interface SignalStreamPort {
  connect(url: string, handlers: StreamHandlers): Disposer;
}

/** Address of the SSE stream for an API base (`/api` or absolute). */
export const signalStreamUrl = (apiBase: string): string => `${apiBase.replace(/\/+$/, '')}/signals/stream`;

export interface SignalChannel {
  /** The server's last `status` event (sources, analyzer), or null before it. */
  readonly status: ReadonlySignal<StreamStatus | null>;
  /** Connects; the disposer closes this tab's end. */
  start(): Disposer;
}

export interface SignalChannelDeps {
  url: string;
  port: SignalStreamPort;
  feed: FeedStore;
  connection: ConnectionStore;
  /** Each applied change; the feed service alerts and looks up prices from here. */
  onChange?(change: FeedChange): void;
  /**
   * Every signal the stream brings, applied or not, with the card it replaced (when the list held it):
   * what tells a story's new marks from the marks it was born with.
   */
  onSignal?(incoming: Signal, before: Signal | undefined, change: FeedChange): void;
}

/** Reads the stream's frames into the feed store and reports the "signals" channel to the header. */
export function createSignalChannel(deps: SignalChannelDeps): SignalChannel {
  const status = signal<StreamStatus | null>(null, { name: 'feed.streamStatus' });
  const parse = (data: string): unknown => {
    try {
      return JSON.parse(data);
    } catch {
      return undefined;
    }
  };
  const handlers: StreamHandlers = {
    open: () => deps.connection.setChannel('signals', true),
    error: () => deps.connection.setChannel('signals', false),
    message(event, data) {
      if (event === 'status') {
        const parsed = StreamStatus.safeParse(parse(data));
        if (!parsed.success) return;
        status.value = parsed.data;
        deps.connection.setChannel('signals', true);
        return;
      }
      if (event !== 'signal') return;
      const parsed = Signal.safeParse(parse(data));
      if (!parsed.success) return;
      const before =
        deps.onSignal === undefined
          ? undefined
          : deps.feed.signals.peek().find((s) => s.id === parsed.data.id);
      const change = deps.feed.receive(parsed.data);
      if (change.kind !== 'ignored') deps.onChange?.(change);
      deps.onSignal?.(parsed.data, before, change);
    },
  };
  return {
    status,
    start() {
      const disconnect = deps.port.connect(deps.url, handlers);
      return () => {
        disconnect();
        deps.connection.setChannel('signals', false);
      };
    },
  };
}
