import { backoffMs } from '../contracts/backoff';
import type { StreamHandlers } from '../services/feed/signalChannel';

/** The SSE event names the server sends (src/contracts/signals.ts StreamMessages). */
export const STREAM_EVENTS = ['status', 'signal'] as const;

/**
 * Back-off after the server closed the stream for good (EventSource retries network drops itself):
 * up to 1, 2, 4, 8, 16, then 30 s, at random within that so that every tab of every user does not
 * come back at the same moment after a server restart.
 */
const RETRY = { baseMs: 1_000, maxMs: 30_000, jitter: 'full' } as const;

/**
 * One EventSource on the signal stream that stays up: the browser's own retry covers dropped
 * connections (sending `Last-Event-ID`); when the stream is closed for good (an error status) it is
 * opened again after a back-off, resuming from the last event id in the query. Used inside the
 * SharedWorker, and directly by a page where SharedWorker is missing.
 */
export function openEventSource(url: string, handlers: StreamHandlers): () => void {
  let source: EventSource | null = null;
  let lastEventId: string | null = null;
  let failures = 0;
  let retry: ReturnType<typeof setTimeout> | null = null;
  let closed = false;

  const connect = (): void => {
    const address = new URL(url, globalThis.location.href);
    if (lastEventId !== null) address.searchParams.set('lastEventId', lastEventId);
    const es = new EventSource(address.href);
    source = es;
    es.addEventListener('open', () => {
      failures = 0;
      handlers.open();
    });
    es.addEventListener('error', () => {
      handlers.error();
      if (es.readyState !== EventSource.CLOSED || closed) return;
      const delay = backoffMs(failures, RETRY);
      failures += 1;
      retry = setTimeout(connect, delay);
    });
    for (const name of STREAM_EVENTS) {
      es.addEventListener(name, (event: MessageEvent<string>) => {
        if (event.lastEventId !== '') lastEventId = event.lastEventId;
        handlers.message(name, event.data);
      });
    }
  };
  connect();
  return () => {
    closed = true;
    if (retry !== null) clearTimeout(retry);
    source?.close();
  };
}
