import { createHmac } from 'node:crypto';
import { z } from 'zod';
import { retryAfterMs } from '../../../src/contracts/backoff';
import {
  ExchangeError,
  VenueRateLimited,
  VenueUnreachable,
  readVenueAnswer,
} from '../trading/exchange-error';
import type { ExchangeAnswer } from '../trading/exchange-health';

/** An API key and its secret, decrypted only for the duration of a request. */
export interface BinanceCredentials {
  apiKey: string;
  secret: string;
}

export { VenueRateLimited, VenueUnreachable } from '../trading/exchange-error';

/** `GET /fapi/v1/time` (and `/api/v3/time`). */
const ServerTime = z.object({ serverTime: z.number().int().positive() });

/** Binance's HMAC-SHA256 signature: hex of HMAC(secret, the exact query string sent). */
export function signQuery(secret: string, query: string): string {
  return createHmac('sha256', secret).update(query).digest('hex');
}

export interface BinanceClientOptions {
  baseUrl: string;
  recvWindow?: number;
  timeoutMs?: number;
  fetch?: typeof fetch;
  now?: () => number;
  /** Told how each call went (answered, rate-limited, 5xx, no answer), for the health check. */
  onAnswer?: (answer: ExchangeAnswer) => void;
}

type Params = Record<string, string | number | boolean | undefined>;

/**
 * Signed REST calls to one Binance host. Keeps its clock in step with the server's (`/fapi/v1/time`,
 * again after a -1021), turns `{code, msg}` answers into ExchangeError, 429/418 into VenueRateLimited
 * (honouring Retry-After), and network failures or timeouts into VenueUnreachable. Node's fetch keeps
 * connections alive between calls.
 */
export class BinanceClient {
  private offsetMs = 0;
  private synced = false;
  /**
   * Back-offs by scope: `host` for a 418 (the IP is banned: every call waits) and for a 429 on a call
   * without a key; an API key for a 429 on that key's calls, so one account's limit never holds back the
   * other accounts on this host.
   */
  private readonly banned = new Map<string, { until: number; status: 429 | 418 }>();
  private readonly fetchImpl: typeof fetch;
  private readonly now: () => number;

  constructor(private readonly opts: BinanceClientOptions) {
    this.fetchImpl = opts.fetch ?? fetch;
    this.now = opts.now ?? Date.now;
  }

  /** Measures the offset to the exchange's clock (half the round trip is taken as transit). */
  async syncTime(timePath = '/fapi/v1/time'): Promise<number> {
    const sent = this.now();
    const body = readVenueAnswer(
      ServerTime,
      await this.send('GET', timePath, '', undefined),
      "the server's time",
    );
    const received = this.now();
    this.offsetMs = body.serverTime - Math.round((sent + received) / 2);
    this.synced = true;
    return this.offsetMs;
  }

  async publicGet<T>(path: string, params: Params = {}): Promise<T> {
    return (await this.send('GET', path, encode(params), undefined)) as T;
  }

  /** A signed call (USER_DATA / TRADE). Retries once after -1021, which Binance answers before acting. */
  async signed<T>(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    params: Params,
    creds: BinanceCredentials,
    timePath?: string,
  ): Promise<T> {
    if (!this.synced) await this.syncTime(timePath).catch(() => undefined);
    for (let attempt = 0; ; attempt++) {
      const query = encode({
        ...params,
        recvWindow: this.opts.recvWindow ?? 5000,
        timestamp: this.now() + this.offsetMs,
      });
      const signedQuery = `${query}&signature=${signQuery(creds.secret, query)}`;
      try {
        return (await this.send(method, path, signedQuery, creds.apiKey)) as T;
      } catch (err) {
        if (attempt === 0 && err instanceof ExchangeError && err.code === -1021) {
          // Refused before acting: when the clock cannot be read again, that refusal is the answer.
          await this.syncTime(timePath).catch(() => {
            throw err;
          });
          continue;
        }
        throw err;
      }
    }
  }

  /** An API-key header call without a signature (listenKey). */
  async keyed<T>(method: 'POST' | 'PUT' | 'DELETE', path: string, apiKey: string): Promise<T> {
    return (await this.send(method, path, '', apiKey)) as T;
  }

  /** The back-off that holds this call, if any: the host's, then the key's. */
  private heldBy(apiKey: string | undefined): { until: number; status: 429 | 418 } | undefined {
    const now = this.now();
    for (const scope of apiKey === undefined ? ['host'] : ['host', `key:${apiKey}`]) {
      const ban = this.banned.get(scope);
      if (ban === undefined) continue;
      if (ban.until > now) return ban;
      this.banned.delete(scope);
    }
    return undefined;
  }

  private async send(method: string, path: string, query: string, apiKey: string | undefined) {
    const held = this.heldBy(apiKey);
    if (held !== undefined) {
      throw new VenueRateLimited(
        held.status,
        Math.ceil((held.until - this.now()) / 1000),
        -1003,
        'Too many requests; waiting out Retry-After.',
      );
    }
    const url = `${this.opts.baseUrl}${path}${query === '' ? '' : `?${query}`}`;
    const headers: Record<string, string> = {};
    if (apiKey !== undefined) headers['X-MBX-APIKEY'] = apiKey;
    let res: Response;
    try {
      res = await this.fetchImpl(url, {
        method,
        headers,
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 10_000),
      });
    } catch {
      this.opts.onAnswer?.({ kind: 'no-answer' });
      // The URL carries the signature: say nothing about it.
      throw new VenueUnreachable(`${method} ${path}: no answer from Binance.`);
    }
    const text = await res.text().catch(() => '');
    this.opts.onAnswer?.(
      res.status === 429 || res.status === 418
        ? { kind: 'rate-limited', status: res.status, untilMs: this.now() + this.waitOf(res) }
        : res.status >= 500
          ? { kind: 'server-error', status: res.status }
          : { kind: res.ok && !isError(parseJson(text)) ? 'answered' : 'refused' },
    );
    const body = parseJson(text);
    if (res.status === 429 || res.status === 418) {
      const waitMs = this.waitOf(res);
      const scope = res.status === 418 || apiKey === undefined ? 'host' : `key:${apiKey}`;
      this.banned.set(scope, { until: this.now() + waitMs, status: res.status });
      const { code, msg } = errorOf(body, res.status);
      throw new VenueRateLimited(res.status, Math.ceil(waitMs / 1000), code, msg);
    }
    if (res.status >= 500) {
      // Binance: a 5xx is not a failure, the execution status is unknown (with a code or without).
      const coded = isError(body) ? body : null;
      throw new VenueUnreachable(
        `${method} ${path}: Binance answered ${res.status}${coded ? ` (${coded.code} ${coded.msg})` : ''}.`,
        coded?.code ?? null,
        coded?.msg ?? null,
      );
    }
    if (!res.ok || isError(body)) {
      const { code, msg } = errorOf(body, res.status);
      throw new ExchangeError(code, msg);
    }
    return body;
  }

  /** A 429's or 418's Retry-After: Binance sends seconds; without a usable wait, a minute. */
  private waitOf(res: Response): number {
    const asked = retryAfterMs(res.headers.get('retry-after'), this.now());
    return asked !== null && asked > 0 ? asked : 60_000;
  }
}

function encode(params: Params): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.append(k, String(v));
  return q.toString();
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

function isError(body: unknown): body is { code: number; msg: string } {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as { code?: unknown }).code === 'number' &&
    (body as { code: number }).code < 0 &&
    typeof (body as { msg?: unknown }).msg === 'string'
  );
}

function errorOf(body: unknown, status: number): { code: number; msg: string } {
  if (isError(body)) return { code: body.code, msg: body.msg };
  return { code: -1000, msg: `Binance answered HTTP ${status}.` };
}
