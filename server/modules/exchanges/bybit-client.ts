import { createHmac } from 'node:crypto';
import { z } from 'zod';
import { systemClock, type Clock } from '../../../src/contracts/clock';
import {
  ExchangeError,
  VenueAnswerUnreadable,
  VenueRateLimited,
  VenueUnreachable,
  readVenueAnswer,
} from '../trading/exchange-error';
import type { ExchangeAnswer } from '../trading/exchange-health';
import type { VenueCredentials } from './credentials';

const VENUE = 'Bybit';

/** Bybit's codes that leave a request's outcome unknown: 10000 server time-out, 10016 server error. */
export const BYBIT_UNKNOWN_CODES: ReadonlySet<number> = new Set([10000, 10016]);
/** 10002: the timestamp is outside the receive window (refused before anything was done). */
export const BYBIT_TIME_WINDOW = 10002;
/** 10006: too many visits on this endpoint for this account. */
export const BYBIT_RATE_LIMITED = 10006;
/** After a 403 (the IP is banned for too many requests) Bybit asks for at least ten minutes. */
const IP_BAN_MS = 10 * 60_000;
const ORDER_CREATE = '/v5/order/create';

/** Every Bybit answer: `{retCode, retMsg, result, retExtInfo, time}`; retCode 0 is success. */
const Envelope = z.object({
  retCode: z.number().int(),
  retMsg: z.string(),
  result: z.unknown(),
  retExtInfo: z.unknown().optional(),
  time: z.number().optional(),
});

/** `GET /v5/market/time`. */
const ServerTime = z.object({ timeSecond: z.string().regex(/^\d+$/), timeNano: z.string().regex(/^\d+$/) });

/**
 * Bybit's v5 signature: lower-case hex of HMAC-SHA256(secret, timestamp + apiKey + recvWindow + payload),
 * the payload being the query string for a GET and the raw JSON body for a POST.
 */
export function signBybit(
  secret: string,
  timestamp: number,
  apiKey: string,
  recvWindow: number,
  payload: string,
): string {
  return createHmac('sha256', secret).update(`${timestamp}${apiKey}${recvWindow}${payload}`).digest('hex');
}

export interface BybitClientOptions {
  /** REST base: `https://api.bybit.com`, or `https://api-demo.bybit.com` for demo trading. */
  baseUrl: string;
  /** `X-BAPI-RECV-WINDOW` (default 5000 ms). */
  recvWindow?: number;
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** Waits of the order budget and the clock of the back-offs (the system's by default). */
  clock?: Clock;
  /** Told how each call went (answered, rate-limited, 5xx, no answer), for the health check. */
  onAnswer?: (answer: ExchangeAnswer) => void;
  /**
   * `/v5/order/create` per account: at most `perWindow` (default 10) in any `windowMs` (default 1100: the
   * venue's second plus a tenth for transit). An order beyond waits for its slot; one whose slot is
   * more than `maxWaitMs` (default 3000) away is refused before it is sent.
   */
  orderBudget?: { perWindow?: number; windowMs?: number; maxWaitMs?: number };
}

type Params = Record<string, string | number | boolean | undefined>;

/**
 * Signed REST calls to one Bybit v5 host. Keeps its clock in step with Bybit's (`/v5/market/time`, again
 * after a 10002), turns a non-zero retCode into ExchangeError with Bybit's own code and message, and:
 * - no answer, a time-out, any 5xx, retCode 10000 or 10016: VenueUnreachable (the outcome is unknown);
 * - retCode 10006: VenueRateLimited until `X-Bapi-Limit-Reset-Timestamp`, for that account and endpoint;
 * - HTTP 403 (Bybit bans the IP for too many requests) or 429: VenueRateLimited for the whole host;
 * - an envelope that is not Bybit's: VenueAnswerUnreadable.
 * Orders are kept within the account's `/v5/order/create` budget ({@link OrderBudget}): queued, and
 * refused only when the queue would hold one longer than `maxWaitMs`. A call returns `result`.
 */
export class BybitClient {
  private offsetMs = 0;
  private synced = false;
  /** Back-offs: `host` (403, 429) and `key:<apiKey>:<path>` (10006 is per account and endpoint). */
  private readonly held = new Map<string, { until: number; status: number }>();
  private readonly fetchImpl: typeof fetch;
  private readonly clock: Clock;
  private readonly budget: OrderBudget;
  readonly recvWindow: number;

  constructor(private readonly opts: BybitClientOptions) {
    this.fetchImpl = opts.fetch ?? fetch;
    this.clock = opts.clock ?? systemClock;
    this.recvWindow = opts.recvWindow ?? 5000;
    this.budget = new OrderBudget(this.clock, opts.orderBudget);
  }

  /** Bybit's clock as this client keeps it (the private stream's `expires` is on it too). */
  serverNow(): number {
    return this.clock.now() + this.offsetMs;
  }

  /** Measures the offset to Bybit's clock (half the round trip is taken as transit). */
  async syncTime(): Promise<number> {
    const sent = this.clock.now();
    const body = readVenueAnswer(
      ServerTime,
      await this.send('GET', '/v5/market/time', '', undefined, undefined),
      "the server's time",
      { venue: VENUE },
    );
    const received = this.clock.now();
    const serverMs = Number(BigInt(body.timeNano) / 1_000_000n);
    this.offsetMs = serverMs - Math.round((sent + received) / 2);
    this.synced = true;
    return this.offsetMs;
  }

  async publicGet(path: string, params: Params = {}): Promise<unknown> {
    return this.send('GET', path, encode(params), undefined, undefined);
  }

  /**
   * A signed call: `params` go in the query string of a GET, as the JSON body of a POST. Retried once
   * after 10002, which Bybit answers before acting.
   */
  async signed(
    method: 'GET' | 'POST',
    path: string,
    params: Params,
    creds: VenueCredentials,
  ): Promise<unknown> {
    if (!this.synced) await this.syncTime().catch(() => undefined);
    if (method === 'POST' && path === ORDER_CREATE) await this.budget.take(creds.apiKey);
    const payload = method === 'GET' ? encode(params) : JSON.stringify(dropUndefined(params));
    for (let attempt = 0; ; attempt++) {
      const timestamp = this.serverNow();
      const headers = {
        'X-BAPI-API-KEY': creds.apiKey,
        'X-BAPI-TIMESTAMP': String(timestamp),
        'X-BAPI-RECV-WINDOW': String(this.recvWindow),
        'X-BAPI-SIGN': signBybit(creds.secret, timestamp, creds.apiKey, this.recvWindow, payload),
      };
      try {
        return await this.send(method, path, payload, creds.apiKey, headers);
      } catch (err) {
        if (attempt === 0 && err instanceof ExchangeError && err.code === BYBIT_TIME_WINDOW) {
          // Refused before acting: when the clock cannot be read again, that refusal is the answer.
          await this.syncTime().catch(() => {
            throw err;
          });
          continue;
        }
        throw err;
      }
    }
  }

  /** The back-off that holds this call, if any: the host's, then the account's on this endpoint. */
  private heldBy(apiKey: string | undefined, path: string) {
    const now = this.clock.now();
    for (const scope of apiKey === undefined ? ['host'] : ['host', `key:${apiKey}:${path}`]) {
      const ban = this.held.get(scope);
      if (ban === undefined) continue;
      if (ban.until > now) return ban;
      this.held.delete(scope);
    }
    return undefined;
  }

  private async send(
    method: 'GET' | 'POST',
    path: string,
    payload: string,
    apiKey: string | undefined,
    signedHeaders: Record<string, string> | undefined,
  ): Promise<unknown> {
    const holding = this.heldBy(apiKey, path);
    if (holding !== undefined) {
      throw new VenueRateLimited(
        holding.status,
        Math.max(1, Math.ceil((holding.until - this.clock.now()) / 1000)),
        BYBIT_RATE_LIMITED,
        'Too many visits; waiting until Bybit lifts the limit.',
        VENUE,
      );
    }
    const get = method === 'GET';
    const url = `${this.opts.baseUrl}${path}${get && payload !== '' ? `?${payload}` : ''}`;
    let res: Response;
    try {
      res = await this.fetchImpl(url, {
        method,
        headers: { ...signedHeaders, ...(get ? {} : { 'Content-Type': 'application/json' }) },
        ...(get ? {} : { body: payload }),
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 10_000),
      });
    } catch {
      this.opts.onAnswer?.({ kind: 'no-answer' });
      throw new VenueUnreachable(`${method} ${path}: no answer from Bybit.`, null, null, VENUE);
    }
    let text: string;
    try {
      text = await res.text();
    } catch {
      this.opts.onAnswer?.({ kind: 'no-answer' });
      throw new VenueUnreachable(`${method} ${path}: Bybit's answer was cut off.`, null, null, VENUE);
    }
    const parsed = Envelope.safeParse(parseJson(text));
    const envelope = parsed.success ? parsed.data : null;
    if (res.status === 403 || res.status === 429) {
      const until = this.clock.now() + (res.status === 403 ? IP_BAN_MS : 1000);
      this.held.set('host', { until, status: res.status });
      this.opts.onAnswer?.({ kind: 'rate-limited', status: res.status === 403 ? 418 : 429, untilMs: until });
      throw new VenueRateLimited(
        res.status,
        Math.ceil((until - this.clock.now()) / 1000),
        envelope?.retCode ?? res.status,
        envelope?.retMsg ??
          (res.status === 403
            ? 'Bybit answered 403: too many requests from this IP; it waits at least 10 minutes.'
            : 'Bybit answered 429: system-level frequency protection.'),
        VENUE,
      );
    }
    if (res.status >= 500 || (envelope !== null && BYBIT_UNKNOWN_CODES.has(envelope.retCode))) {
      this.opts.onAnswer?.({ kind: 'server-error', status: res.status >= 500 ? res.status : 503 });
      const coded = envelope === null ? '' : ` (${envelope.retCode} ${envelope.retMsg})`;
      throw new VenueUnreachable(
        `${method} ${path}: Bybit answered ${res.status}${coded}.`,
        envelope?.retCode ?? null,
        envelope?.retMsg ?? null,
        VENUE,
      );
    }
    if (envelope?.retCode === BYBIT_RATE_LIMITED) {
      const until = this.resetOf(res);
      if (apiKey !== undefined) this.held.set(`key:${apiKey}:${path}`, { until, status: 429 });
      this.opts.onAnswer?.({ kind: 'rate-limited', status: 429, untilMs: until });
      throw new VenueRateLimited(
        429,
        Math.max(1, Math.ceil((until - this.clock.now()) / 1000)),
        envelope.retCode,
        envelope.retMsg,
        VENUE,
      );
    }
    if (envelope === null) {
      this.opts.onAnswer?.({ kind: res.ok ? 'answered' : 'refused' });
      if (!res.ok) throw new ExchangeError(res.status, `Bybit answered HTTP ${res.status}.`);
      throw new VenueAnswerUnreadable(VENUE, `${method} ${path}`, [
        text === '' ? 'no body' : 'not the documented shape',
      ]);
    }
    this.opts.onAnswer?.({ kind: envelope.retCode === 0 && res.ok ? 'answered' : 'refused' });
    if (envelope.retCode !== 0) throw new ExchangeError(envelope.retCode, envelope.retMsg);
    if (!res.ok) throw new ExchangeError(res.status, `Bybit answered HTTP ${res.status}.`);
    return envelope.result;
  }

  /** When a 10006 lifts: `X-Bapi-Limit-Reset-Timestamp` (ms epoch, Bybit's clock); a second otherwise. */
  private resetOf(res: Response): number {
    const reset = Number(res.headers.get('x-bapi-limit-reset-timestamp'));
    const local = Number.isFinite(reset) && reset > 0 ? reset - this.offsetMs : 0;
    return Math.max(local, this.clock.now() + 1000);
  }
}

/**
 * The account's `/v5/order/create` budget, kept on this side so that Bybit never has to answer 10006 to
 * an order: each order takes the next free slot (at most `perWindow` in any `windowMs`), waiting for it
 * in the order the orders came. An order whose slot is further than `maxWaitMs` is refused at once
 * (VenueRateLimited, nothing sent): an order held longer would reach the market at a price nobody asked
 * for. Slots are taken synchronously, so parallel orders never share one.
 */
export class OrderBudget {
  private readonly slots = new Map<string, number[]>();
  private readonly perWindow: number;
  private readonly windowMs: number;
  private readonly maxWaitMs: number;

  constructor(
    private readonly clock: Clock,
    opts: { perWindow?: number; windowMs?: number; maxWaitMs?: number } = {},
  ) {
    this.perWindow = opts.perWindow ?? 10;
    this.windowMs = opts.windowMs ?? 1100;
    this.maxWaitMs = opts.maxWaitMs ?? 3000;
  }

  async take(apiKey: string): Promise<void> {
    const now = this.clock.now();
    const taken = (this.slots.get(apiKey) ?? []).filter((t) => t > now - this.windowMs);
    const oldest = taken[taken.length - this.perWindow];
    const slot = oldest === undefined ? now : Math.max(now, oldest + this.windowMs);
    const wait = slot - now;
    if (wait > this.maxWaitMs) {
      throw new VenueRateLimited(
        429,
        Math.ceil(wait / 1000),
        BYBIT_RATE_LIMITED,
        `Bybit takes ${this.perWindow} orders a second per account; this one would have waited ${(wait / 1000).toFixed(1)} s, so it was not sent.`,
        VENUE,
      );
    }
    taken.push(slot);
    this.slots.set(apiKey, taken);
    if (wait > 0) await new Promise<void>((resolve) => this.clock.setTimer(resolve, wait));
  }
}

function encode(params: Params): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.append(k, String(v));
  return q.toString();
}

function dropUndefined(params: Params): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(params)) if (v !== undefined) out[k] = v;
  return out;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
