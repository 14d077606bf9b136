import { retryAfterMs } from '../../../../src/contracts/backoff';
import type { Clock } from '../news.types';
import { RetryAfterError } from './poller';

export interface SourceRequest {
  /** The source's own fetch (tests pass a double); globalThis.fetch when absent. */
  http: typeof fetch | undefined;
  clock: Clock;
  /** Who answers, as an error names it: "Binance answered 503". */
  who: string;
  headers?: Record<string, string>;
  /** The poll's own signal: stopping the source aborts the request. */
  signal: AbortSignal;
  /** Gives up on an answer that takes longer. */
  timeoutMs: number;
  /**
   * Statuses that mean "come back later": a RetryAfterError waiting what Retry-After says, else
   * `retryDefaultMs`.
   */
  retryOn?: readonly number[];
  retryDefaultMs?: number;
  /** Statuses answered as they are, not failures (304 Not Modified). */
  pass?: readonly number[];
  /** False: any status is answered as it is, the body says what happened (Telegram's `ok`). */
  checkStatus?: boolean;
}

/**
 * One request of a polling news source, with what every source needs around it: a timeout next to the
 * poll's abort, the server's ask to wait turned into a RetryAfterError, and any other failing status
 * turned into an error naming it.
 */
export async function fetchSource(url: string | URL, o: SourceRequest): Promise<Response> {
  const http = o.http ?? globalThis.fetch;
  const res = await http(url, {
    ...(o.headers === undefined ? {} : { headers: o.headers }),
    signal: AbortSignal.any([o.signal, AbortSignal.timeout(o.timeoutMs)]),
  });
  if (o.checkStatus === false || o.pass?.includes(res.status)) return res;
  if (o.retryOn?.includes(res.status)) {
    const wait = retryAfterMs(res.headers.get('retry-after'), o.clock.now());
    throw new RetryAfterError(`${o.who} answered ${res.status}`, wait ?? o.retryDefaultMs ?? 0);
  }
  if (!res.ok) throw new Error(`${o.who} answered ${res.status}`);
  return res;
}
