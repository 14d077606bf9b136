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

const VENUE = 'OKX';

/**
 * OKX's codes that leave a request's outcome unknown: 50001 service unavailable, 50004 endpoint time-out
 * ("does not mean that the request was successful or failed"), 50013 system busy, 50026 system error,
 * 51149 order timed out. The caller looks the order up before anything is sent again.
 */
export const OKX_UNKNOWN_CODES: ReadonlySet<number> = new Set([50001, 50004, 50013, 50026, 51149]);
/** 50011: too many requests on this endpoint. */
export const OKX_RATE_LIMITED = 50011;
/** 50102: the timestamp is too far from OKX's clock (refused before anything was done). */
export const OKX_TIMESTAMP_EXPIRED = 50102;
/** OKX counts a rate-limited endpoint over 2 s: the call waits that long before it is tried again. */
const RATE_LIMIT_HOLD_MS = 2_000;
export const ORDER_PATH = '/api/v5/trade/order';

/** Every OKX answer: `{code, msg, data}`, code "0" for success; gateway times in µs on trading calls. */
const Envelope = z.object({
  code: z.string(),
  msg: z.string().default(''),
  data: z.array(z.unknown()).default([]),
  inTime: z.string().optional(),
  outTime: z.string().optional(),
});

/** The per-row outcome of a trading call (`sCode` "0" for success). */
const RowOutcome = z.looseObject({ sCode: z.string(), sMsg: z.string().default('') });

/** `GET /api/v5/public/time`. */
const ServerTime = z.array(z.object({ ts: z.string().regex(/^\d+$/) })).min(1);

/**
 * OKX's v5 signature: base64 of HMAC-SHA256(secret, timestamp + METHOD + requestPath + body), the
 * request path with its query string, the body the raw JSON sent ("" for a GET).
 */
export function signOkx(
  secret: string,
  timestamp: string,
  method: 'GET' | 'POST',
  requestPath: string,
  body: string,
): string {
  return createHmac('sha256', secret).update(`${timestamp}${method}${requestPath}${body}`).digest('base64');
}

/** `OK-ACCESS-TIMESTAMP`: ISO-8601 in UTC with milliseconds (`2020-12-08T09:08:57.715Z`). */
export const okxTimestamp = (ms: number): string => new Date(ms).toISOString();

/** What OKX's gateway says of a call's timing: when it took the request in and sent the answer out. */
export interface OkxGatewayTimes {
  /** `inTime`, µs since the epoch, as OKX sends it (digits). */
  inTime: string | null;
  /** `outTime`, µs since the epoch. */
  outTime: string | null;
}

/** A call's `data` rows with the gateway's times. */
export interface OkxAnswer extends OkxGatewayTimes {
  data: unknown[];
}

export interface OkxClientOptions {
  /** REST base: `https://www.okx.com` (demo trading is the same host with `simulated`). */
  baseUrl: string;
  /** Demo trading: every signed call carries `x-simulated-trading: 1` (a demo key needs it). */
  simulated?: boolean;
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** The waits of the order budget and the clock of the back-offs (the system's by default). */
  clock?: Clock;
  /** Told how each call went (answered, rate-limited, 5xx, no answer), for the health check. */
  onAnswer?: (answer: ExchangeAnswer) => void;
  /**
   * `POST /api/v5/trade/order` per account and instrument: at most `perWindow` (default 60) in any
   * `windowMs` (default 2100: OKX's 2 s plus a tenth for transit). An order beyond waits for its slot;
   * one whose slot is more than `maxWaitMs` (default 3000) away is refused before it is sent.
   */
  orderBudget?: { perWindow?: number; windowMs?: number; maxWaitMs?: number };
}

type Params = Record<string, string | number | boolean | undefined>;

/**
 * Signed REST calls to one OKX v5 host (mainnet or demo trading). Keeps its clock in step with OKX's
 * (`/api/v5/public/time`, again after a 50102), and reads every answer:
 * - code "0": the `data` rows (with the gateway's `inTime`/`outTime`);
 * - a refusal, also one inside HTTP 200 (`code:"1"` and the row's `sCode`/`sMsg`): ExchangeError with
 *   OKX's own code and message; HTTP 401 (50102, 50105, 50111, 50113, 50101) likewise;
 * - no answer, a time-out, any 5xx, or 50001/50004/50013/50026/51149: VenueUnreachable (unknown);
 * - 50011 or HTTP 429: VenueRateLimited, and that account's endpoint waits 2 s before it is asked again;
 * - an envelope that is not OKX's: VenueAnswerUnreadable.
 * Orders are kept within the account's per-instrument budget ({@link OkxOrderBudget}): queued, and
 * refused only when the queue would hold one longer than `maxWaitMs`.
 */
export class OkxClient {
  private offsetMs = 0;
  private synced = false;
  /** Back-offs: `host` (HTTP 429 without a key) and `key:<apiKey>:<path>` (OKX limits per endpoint). */
  private readonly held = new Map<string, number>();
  private readonly fetchImpl: typeof fetch;
  private readonly clock: Clock;
  private readonly budget: OkxOrderBudget;

  constructor(private readonly opts: OkxClientOptions) {
    this.fetchImpl = opts.fetch ?? fetch;
    this.clock = opts.clock ?? systemClock;
    this.budget = new OkxOrderBudget(this.clock, opts.orderBudget);
  }

  /** Demo trading (the `x-simulated-trading` header). */
  get simulated(): boolean {
    return this.opts.simulated === true;
  }

  /** OKX's clock as this client keeps it, in ms (the private stream's login timestamp is on it too). */
  serverNow(): number {
    return this.clock.now() + this.offsetMs;
  }

  /** Measures the offset to OKX's clock (half the round trip is taken as transit). */
  async syncTime(): Promise<number> {
    const sent = this.clock.now();
    const { data } = await this.send('GET', '/api/v5/public/time', '', undefined);
    const [row] = readVenueAnswer(ServerTime, data, "the server's time", { venue: VENUE });
    const received = this.clock.now();
    this.offsetMs = Number(row?.ts) - Math.round((sent + received) / 2);
    this.synced = true;
    return this.offsetMs;
  }

  /** An unsigned GET (instruments, tickers): the `data` rows. */
  async publicGet(path: string, params: Params = {}): Promise<unknown[]> {
    return (await this.send('GET', withQuery(path, params), '', undefined)).data;
  }

  /** A signed call's `data` rows. */
  async signed(
    method: 'GET' | 'POST',
    path: string,
    params: Params | readonly Params[],
    creds: VenueCredentials,
  ): Promise<unknown[]> {
    return (await this.signedAnswer(method, path, params, creds)).data;
  }

  /**
   * A signed call: `params` in the query string of a GET, as the JSON body of a POST (an array for the
   * batch endpoints, `cancel-algos`); its rows and the gateway's times. Retried once after 50102, which
   * OKX answers before acting.
   */
  async signedAnswer(
    method: 'GET' | 'POST',
    path: string,
    params: Params | readonly Params[],
    creds: VenueCredentials,
  ): Promise<OkxAnswer> {
    if (!this.synced) await this.syncTime().catch(() => undefined);
    const single: Params = isList(params) ? {} : params;
    if (method === 'POST' && path === ORDER_PATH) {
      await this.budget.take(`${creds.apiKey}|${String(single.instId)}`);
    }
    const requestPath = method === 'GET' ? withQuery(path, single) : path;
    const body =
      method === 'GET'
        ? ''
        : JSON.stringify(isList(params) ? params.map(dropUndefined) : dropUndefined(params));
    for (let attempt = 0; ; attempt++) {
      const timestamp = okxTimestamp(this.serverNow());
      const headers: Record<string, string> = {
        'OK-ACCESS-KEY': creds.apiKey,
        'OK-ACCESS-SIGN': signOkx(creds.secret, timestamp, method, requestPath, body),
        'OK-ACCESS-TIMESTAMP': timestamp,
        'OK-ACCESS-PASSPHRASE': creds.passphrase ?? '',
        ...(this.simulated ? { 'x-simulated-trading': '1' } : {}),
      };
      try {
        return await this.send(method, requestPath, body, { apiKey: creds.apiKey, path, headers });
      } catch (err) {
        if (attempt === 0 && err instanceof ExchangeError && err.code === OKX_TIMESTAMP_EXPIRED) {
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

  private heldFor(scopes: string[]): number | undefined {
    const now = this.clock.now();
    for (const scope of scopes) {
      const until = this.held.get(scope);
      if (until === undefined) continue;
      if (until > now) return until;
      this.held.delete(scope);
    }
    return undefined;
  }

  private limited(status: number, code: number, msg: string, scope: string): VenueRateLimited {
    const until = this.clock.now() + RATE_LIMIT_HOLD_MS;
    this.held.set(scope, until);
    this.opts.onAnswer?.({ kind: 'rate-limited', status: 429, untilMs: until });
    return new VenueRateLimited(status, RATE_LIMIT_HOLD_MS / 1000, code, msg, VENUE);
  }

  private async send(
    method: 'GET' | 'POST',
    requestPath: string,
    body: string,
    signing: { apiKey: string; path: string; headers: Record<string, string> } | undefined,
  ): Promise<OkxAnswer> {
    const scope = signing === undefined ? 'host' : `key:${signing.apiKey}:${signing.path}`;
    const until = this.heldFor(signing === undefined ? ['host'] : ['host', scope]);
    if (until !== undefined) {
      throw new VenueRateLimited(
        429,
        Math.max(1, Math.ceil((until - this.clock.now()) / 1000)),
        OKX_RATE_LIMITED,
        'Too many requests; waiting until OKX takes this endpoint again.',
        VENUE,
      );
    }
    const what = `${method} ${requestPath.split('?')[0]}`;
    const get = method === 'GET';
    let res: Response;
    let text: string;
    try {
      res = await this.fetchImpl(`${this.opts.baseUrl}${requestPath}`, {
        method,
        headers: { ...signing?.headers, ...(get ? {} : { 'Content-Type': 'application/json' }) },
        ...(get ? {} : { body }),
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 10_000),
      });
      text = await res.text();
    } catch {
      this.opts.onAnswer?.({ kind: 'no-answer' });
      throw new VenueUnreachable(`${what}: no answer from OKX.`, null, null, VENUE);
    }
    const parsed = Envelope.safeParse(parseJson(text));
    const envelope = parsed.success ? parsed.data : null;
    // The row's own outcome when the call failed: a refusal inside HTTP 200 names it there.
    const row = envelope === null ? null : RowOutcome.safeParse(envelope.data[0]);
    const failed = row?.success === true && row.data.sCode !== '0' ? row.data : null;
    const code = envelope === null ? null : Number(failed?.sCode ?? envelope.code);
    const msg = failed?.sMsg || envelope?.msg || '';
    if (res.status === 429 || code === OKX_RATE_LIMITED) {
      throw this.limited(429, code ?? OKX_RATE_LIMITED, msg || 'OKX answered 429: too many requests.', scope);
    }
    if (res.status >= 500 || (code !== null && OKX_UNKNOWN_CODES.has(code))) {
      this.opts.onAnswer?.({ kind: 'server-error', status: res.status >= 500 ? res.status : 503 });
      const coded = code === null ? '' : ` (${code} ${msg})`;
      throw new VenueUnreachable(`${what}: OKX answered ${res.status}${coded}.`, code, msg || null, VENUE);
    }
    if (envelope === null || code === null || !Number.isFinite(code)) {
      this.opts.onAnswer?.({ kind: res.ok ? 'answered' : 'refused' });
      if (!res.ok) throw new ExchangeError(res.status, `OKX answered HTTP ${res.status}.`);
      throw new VenueAnswerUnreadable(VENUE, what, [text === '' ? 'no body' : 'not the documented shape']);
    }
    const ok = envelope.code === '0' && failed === null && res.ok;
    this.opts.onAnswer?.({ kind: ok ? 'answered' : 'refused' });
    if (!ok)
      throw new ExchangeError(code === 0 ? res.status : code, msg || `OKX answered HTTP ${res.status}.`);
    return { data: envelope.data, inTime: envelope.inTime ?? null, outTime: envelope.outTime ?? null };
  }
}

/**
 * The account's order budget per instrument (OKX: 60 orders in 2 s per account and instrument), kept on
 * this side so that OKX never has to answer 50011 to an order: each order takes the next free slot,
 * waiting for it in the order the orders came. One whose slot is further than `maxWaitMs` is refused at
 * once (VenueRateLimited, nothing sent): an order held longer would reach the market at a price nobody
 * asked for. Slots are taken synchronously, so parallel orders never share one.
 */
export class OkxOrderBudget {
  private readonly slots = new Map<string, number[]>();
  private readonly perWindow: number;
  private readonly windowMs: number;
  private readonly maxWaitMs: number;

  constructor(
    private readonly clock: Clock,
    opts: { perWindow?: number; windowMs?: number; maxWaitMs?: number } = {},
  ) {
    this.perWindow = opts.perWindow ?? 60;
    this.windowMs = opts.windowMs ?? 2_100;
    this.maxWaitMs = opts.maxWaitMs ?? 3_000;
  }

  /** Waits for the next slot of `scope` (`apiKey|instId`), or refuses when it is too far away. */
  async take(scope: string): Promise<void> {
    const now = this.clock.now();
    const taken = (this.slots.get(scope) ?? []).filter((t) => t > now - this.windowMs);
    const oldest = taken[taken.length - this.perWindow];
    const slot = oldest === undefined ? now : Math.max(now, oldest + this.windowMs);
    const wait = slot - now;
    if (wait > this.maxWaitMs) {
      throw new VenueRateLimited(
        429,
        Math.ceil(wait / 1000),
        OKX_RATE_LIMITED,
        `OKX takes ${this.perWindow} orders per instrument every 2 s per account; this one would have waited ${(wait / 1000).toFixed(1)} s, so it was not sent.`,
        VENUE,
      );
    }
    taken.push(slot);
    this.slots.set(scope, taken);
    if (wait > 0) await new Promise<void>((resolve) => this.clock.setTimer(resolve, wait));
  }
}

/** The path with its query string, exactly as it is signed and sent. */
function withQuery(path: string, params: Params): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.append(k, String(v));
  const query = q.toString();
  return query === '' ? path : `${path}?${query}`;
}

const isList = (params: Params | readonly Params[]): params is readonly Params[] => Array.isArray(params);

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
