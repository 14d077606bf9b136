import { openEventSource } from './eventSourceTransport';
import type { WorkerReply, WorkerRequest } from './signalStreamPort';

/**
 * The SharedWorker that holds the one signal stream every tab of this origin shares (docs/product.md §7: the
 * stream runs in a background worker). Tabs connect with `connect`, leave with `disconnect`; each
 * frame goes to every connected tab, and a tab that joins late gets the open state and the last
 * `status` frame at once.
 */
interface ConnectEvent {
  ports: readonly MessagePort[];
}
const scope = globalThis as unknown as { onconnect: ((event: ConnectEvent) => void) | null };

const ports = new Set<MessagePort>();
let stop: (() => void) | null = null;
let isOpen = false;
let lastStatus: string | null = null;

const broadcast = (reply: WorkerReply): void => {
  for (const port of ports) port.postMessage(reply);
};

function start(url: string): void {
  if (stop !== null) return;
  stop = openEventSource(url, {
    open() {
      isOpen = true;
      broadcast({ type: 'open' });
    },
    error() {
      isOpen = false;
      broadcast({ type: 'error' });
    },
    message(event, data) {
      if (event === 'status') lastStatus = data;
      broadcast({ type: 'message', event, data });
    },
  });
}

scope.onconnect = (event) => {
  const port = event.ports[0];
  if (port === undefined) return;
  port.onmessage = (message: MessageEvent<WorkerRequest>) => {
    const request = message.data;
    if (request.type === 'connect') {
      ports.add(port);
      start(request.url);
      if (isOpen) port.postMessage({ type: 'open' } satisfies WorkerReply);
      if (lastStatus !== null) {
        port.postMessage({ type: 'message', event: 'status', data: lastStatus } satisfies WorkerReply);
      }
      return;
    }
    ports.delete(port);
    port.close();
    if (ports.size === 0 && stop !== null) {
      stop();
      stop = null;
      isOpen = false;
      lastStatus = null;
    }
  };
  port.start();
};
