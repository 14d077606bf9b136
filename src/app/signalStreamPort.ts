import type { SignalStreamPort, StreamHandlers } from '../services/feed/signalChannel';
import { openEventSource } from './eventSourceTransport';

/** Page → worker. */
export type WorkerRequest = { type: 'connect'; url: string } | { type: 'disconnect' };
/** Worker → page. */
export type WorkerReply =
  { type: 'open' } | { type: 'error' } | { type: 'message'; event: string; data: string };

/** Joins the SharedWorker that holds the one stream of all tabs. */
function sharedWorkerPort(): SignalStreamPort {
  return {
    connect(url: string, handlers: StreamHandlers) {
      const worker = new SharedWorker(new URL('./signalWorker.ts', import.meta.url), {
        type: 'module',
        name: 'signal-stream',
      });
      const port = worker.port;
      port.onmessage = (event: MessageEvent<WorkerReply>) => {
        const reply = event.data;
        if (reply.type === 'open') handlers.open();
        else if (reply.type === 'error') handlers.error();
        else handlers.message(reply.event, reply.data);
      };
      port.start();
      const absolute = new URL(url, window.location.href).href;
      const join = (): void => port.postMessage({ type: 'connect', url: absolute } satisfies WorkerRequest);
      const leave = (): void => port.postMessage({ type: 'disconnect' } satisfies WorkerRequest);
      // A page put in the back-forward cache leaves, and joins again when it is shown.
      const back = (event: PageTransitionEvent): void => {
        if (event.persisted) join();
      };
      join();
      window.addEventListener('pagehide', leave);
      window.addEventListener('pageshow', back);
      return () => {
        window.removeEventListener('pagehide', leave);
        window.removeEventListener('pageshow', back);
        leave();
        port.close();
      };
    },
  };
}

/** The page's own EventSource, where the browser has no SharedWorker. */
const eventSourcePort: SignalStreamPort = { connect: openEventSource };

/** The signal stream transport of this browser: shared between tabs when it can be. */
export function browserSignalStream(): SignalStreamPort {
  return typeof SharedWorker === 'function' ? sharedWorkerPort() : eventSourcePort;
}
