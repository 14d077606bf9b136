import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../../../../src/services/testing/fakeClock';
import { fetchSource, type SourceRequest } from './fetch-source';
import { RetryAfterError } from './poller';

/** A fetch that answers `status` (with `headers`) and keeps what it was asked with. */
function answering(status: number, headers: Record<string, string> = {}) {
  const asked: RequestInit[] = [];
  const http = (async (_url: string | URL | Request, init?: RequestInit) => {
    asked.push(init ?? {});
    return new Response(status === 304 ? null : 'body', { status, headers });
  }) as typeof fetch;
  return { http, asked };
}

function request(http: typeof fetch, extra: Partial<SourceRequest> = {}): SourceRequest {
  return {
    http,
    clock: createFakeClock(1_000_000),
    who: 'feed',
    signal: new AbortController().signal,
    timeoutMs: 15_000,
    ...extra,
  };
}

describe('a news source request', () => {
  it('answers a success and the statuses it was told to pass, with the headers it was given', async () => {
    const ok = answering(200);
    const res = await fetchSource('http://127.0.0.1/feed', request(ok.http, { headers: { accept: 'x' } }));
    expect(res.status).toBe(200);
    expect(new Headers(ok.asked[0]?.headers).get('accept')).toBe('x');
    const notModified = answering(304);
    const same = await fetchSource('http://127.0.0.1/feed', request(notModified.http, { pass: [304] }));
    expect(same.status).toBe(304);
  });

  it('turns an ask to wait into a RetryAfterError of the time asked, or of the default', async () => {
    const told = answering(429, { 'retry-after': '7' });
    const err = await fetchSource('http://127.0.0.1/feed', request(told.http, { retryOn: [429] })).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RetryAfterError);
    expect((err as RetryAfterError).retryAfterMs).toBe(7_000);
    expect((err as RetryAfterError).message).toBe('feed answered 429');
    const untold = answering(418);
    await expect(
      fetchSource('http://127.0.0.1/a', request(untold.http, { retryOn: [418], retryDefaultMs: 60_000 })),
    ).rejects.toMatchObject({ retryAfterMs: 60_000 });
  });

  it('names any other failing status, unless the body is to say what happened', async () => {
    const failing = answering(503);
    await expect(fetchSource('http://127.0.0.1/a', request(failing.http))).rejects.toThrow(
      'feed answered 503',
    );
    await expect(
      fetchSource('http://127.0.0.1/a', request(failing.http, { retryOn: [429] })),
    ).rejects.not.toBeInstanceOf(RetryAfterError);
    const res = await fetchSource('http://127.0.0.1/a', request(failing.http, { checkStatus: false }));
    expect(res.status).toBe(503);
  });

  it('gives the request a signal that stopping the source aborts', async () => {
    const ok = answering(200);
    const stop = new AbortController();
    await fetchSource('http://127.0.0.1/a', request(ok.http, { signal: stop.signal }));
    const signal = ok.asked[0]?.signal;
    expect(signal?.aborted).toBe(false);
    stop.abort();
    expect(signal?.aborted).toBe(true);
  });
});
