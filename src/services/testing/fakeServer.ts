import type { FetchImpl } from '../api/client';

export interface RecordedRequest {
  method: string;
  path: string;
  /** The query string, `?days=30` (empty without one). */
  search: string;
  authorization: string | null;
  /** The `Idempotency-Key` header, if sent. */
  idempotencyKey: string | null;
  body: string | null;
}

export interface FakeReply {
  status: number;
  body?: unknown;
}

type Handler = (request: RecordedRequest) => FakeReply | Promise<FakeReply>;

/** A fake HTTP server behind an injected `fetch`: routes are "METHOD /path" (path without the base). */
export interface FakeServer {
  fetch: FetchImpl;
  requests: RecordedRequest[];
  on(route: string, handler: Handler): void;
  count(route: string): number;
}

export function createFakeServer(base = '/api'): FakeServer {
  const routes = new Map<string, Handler>();
  const requests: RecordedRequest[] = [];
  const fetch: FetchImpl = async (input, init) => {
    const url = new URL(
      typeof input === 'string' ? input : input instanceof URL ? input.href : input.url,
      'http://test',
    );
    const path = url.pathname.startsWith(base) ? url.pathname.slice(base.length) : url.pathname;
    const method = (init?.method ?? 'GET').toUpperCase();
    const body = typeof init?.body === 'string' ? init.body : init?.body == null ? null : String(init.body);
    const headers = new Headers(init?.headers);
    const request: RecordedRequest = {
      method,
      path,
      search: url.search,
      authorization: headers.get('authorization'),
      idempotencyKey: headers.get('idempotency-key'),
      body,
    };
    requests.push(request);
    const handler = routes.get(`${method} ${path}`);
    const answer = Promise.resolve(
      handler === undefined ? { status: 404, body: { detail: 'Not Found' } } : handler(request),
    );
    // Like a real fetch, an aborted call rejects at once (Ctrl+C on a command waiting for the server).
    const signal = init?.signal ?? null;
    const reply = await (signal === null
      ? answer
      : Promise.race([
          answer,
          new Promise<never>((_, reject) => {
            const abort = (): void => reject(new DOMException('The operation was aborted.', 'AbortError'));
            if (signal.aborted) abort();
            else signal.addEventListener('abort', abort, { once: true });
          }),
        ]));
    return new Response(reply.body === undefined ? null : JSON.stringify(reply.body), {
      status: reply.status,
      headers: { 'content-type': 'application/json' },
    });
  };
  return {
    fetch,
    requests,
    on(route, handler) {
      routes.set(route, handler);
    },
    count(route) {
      return requests.filter((r) => `${r.method} ${r.path}` === route).length;
    },
  };
}
