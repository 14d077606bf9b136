import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/contracts/clock';
import {
  ExchangeError,
  VenueAnswerUnreadable,
  VenueRateLimited,
  VenueUnreachable,
} from '../trading/exchange-error';
import type { ExchangeAnswer } from '../trading/exchange-health';
import { BybitClient, OrderBudget, signBybit } from './bybit-client';

const CREDS = { apiKey: 'XXXXXXXXXX', secret: 'test-secret-0123' };

/** A clock that moves only when told; timers fire as it passes them. */
function manualClock(start = 1_700_000_000_000) {
  let now = start;
  const timers: { at: number; fn: () => void }[] = [];
  const clock: Clock = {
    now: () => now,
    setTimer(fn, ms) {
      const t = { at: now + ms, fn };
      timers.push(t);
      return () => void timers.splice(timers.indexOf(t), 1);
    },
  };
  const advance = async (ms: number) => {
    now += ms;
    for (const t of timers.filter((x) => x.at <= now).sort((a, b) => a.at - b.at)) {
      timers.splice(timers.indexOf(t), 1);
      t.fn();
    }
    await new Promise((r) => setImmediate(r));
  };
  return { clock, advance };
}

interface Sent {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** A fetch that answers from a list (the last one repeats) and keeps what was sent. */
function fakeFetch(answers: (() => Response)[]) {
  const sent: Sent[] = [];
  const impl = (async (url: string | URL | Request, init?: RequestInit) => {
    sent.push({
      url: String(url),
      method: init?.method ?? 'GET',
      headers: init?.headers as Record<string, string>,
      body: init?.body as string | undefined,
    });
    const next = answers.length > 1 ? answers.shift() : answers[0];
    if (next === undefined) throw new Error('no answer');
    return next();
  }) as typeof fetch;
  return { impl, sent };
}

const envelope = (retCode: number, result: unknown = {}, retMsg = retCode === 0 ? 'OK' : 'refused') =>
  JSON.stringify({ retCode, retMsg, result, retExtInfo: {}, time: 1_700_000_000_000 });
const json =
  (body: string, status = 200, headers: Record<string, string> = {}) =>
  () =>
    new Response(body, { status, headers: { 'content-type': 'application/json', ...headers } });
const time = json(envelope(0, { timeSecond: '1700000000', timeNano: '1700000000000000000' }));

function clientWith(answers: (() => Response)[], extra: { answers?: ExchangeAnswer[] } = {}) {
  const { clock, advance } = manualClock();
  const f = fakeFetch([time, ...answers]);
  const client = new BybitClient({
    baseUrl: 'http://127.0.0.1:1',
    fetch: f.impl,
    clock,
    onAnswer: (a) => extra.answers?.push(a),
  });
  return { client, sent: f.sent, advance };
}

describe('Bybit v5 signing', () => {
  it("signs timestamp + apiKey + recvWindow + payload, the documented examples' strings", () => {
    // The GET and POST strings of Bybit's guide, signed with a known secret (values from openssl).
    expect(
      signBybit(
        CREDS.secret,
        1658384314791,
        'XXXXXXXXXX',
        5000,
        'category=option&symbol=BTC-29JUL22-25000-C',
      ),
    ).toBe('4eb2eeb17e6bf00c1e74328ec9ad689f697a7482d489ab21928a1628e92392f4');
    expect(signBybit(CREDS.secret, 1658385579423, 'XXXXXXXXXX', 5000, '{"category": "option"}')).toBe(
      '9be3257ddffe9ad0da47ea6fcc0173d6f880d96df9106cc84900627afff89a15',
    );
  });

  it('sends the headers and signs the exact query of a GET and the raw body of a POST', async () => {
    const { client, sent } = clientWith([json(envelope(0, { list: [] }))]);
    await client.signed('GET', '/v5/position/list', { category: 'linear', settleCoin: 'USDT' }, CREDS);
    await client.signed(
      'POST',
      '/v5/order/create',
      { category: 'linear', qty: '0.001', reduceOnly: undefined },
      CREDS,
    );
    const [, get, post] = sent;
    expect(get?.url).toBe('http://127.0.0.1:1/v5/position/list?category=linear&settleCoin=USDT');
    expect(get?.headers['X-BAPI-RECV-WINDOW']).toBe('5000');
    const ts = Number(get?.headers['X-BAPI-TIMESTAMP']);
    expect(get?.headers['X-BAPI-SIGN']).toBe(
      signBybit(CREDS.secret, ts, CREDS.apiKey, 5000, 'category=linear&settleCoin=USDT'),
    );
    expect(post?.body).toBe('{"category":"linear","qty":"0.001"}');
    const postTs = Number(post?.headers['X-BAPI-TIMESTAMP']);
    expect(post?.headers['X-BAPI-SIGN']).toBe(
      signBybit(CREDS.secret, postTs, CREDS.apiKey, 5000, post?.body ?? ''),
    );
    expect(post?.headers['Content-Type']).toBe('application/json');
  });
});

describe('Bybit answers', () => {
  it("a non-zero retCode is Bybit's refusal; 10002 resyncs the clock and tries once more", async () => {
    const { client, sent } = clientWith([
      json(envelope(110007, {}, 'Available balance is insufficient')),
      json(envelope(10002, {}, 'invalid request')),
      time,
      json(envelope(0, { ok: true })),
    ]);
    const err = await client.signed('GET', '/v5/x', {}, CREDS).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExchangeError);
    expect(err).toMatchObject({ code: 110007, msg: 'Available balance is insufficient' });
    expect(await client.signed('GET', '/v5/x', {}, CREDS)).toEqual({ ok: true });
    expect(sent.filter((s) => s.url.endsWith('/v5/market/time'))).toHaveLength(2);
  });

  it('10000, 10016, any 5xx and no answer leave the outcome unknown (VenueUnreachable naming Bybit)', async () => {
    const answers: ExchangeAnswer[] = [];
    const { client } = clientWith(
      [
        json(envelope(10016, {}, 'Server error.')),
        json(envelope(10000)),
        json('<html>', 502),
        () => Promise.reject(new Error('cut')) as never,
      ],
      { answers },
    );
    for (const code of [10016, 10000, null]) {
      const err = await client.signed('POST', '/v5/order/create', {}, CREDS).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(VenueUnreachable);
      expect(err).toMatchObject({ code, venue: 'Bybit' });
    }
    expect(
      await client.signed('POST', '/v5/order/create', {}, CREDS).catch((e: unknown) => e),
    ).toBeInstanceOf(VenueUnreachable);
    expect(answers.map((a) => a.kind)).toEqual([
      'answered',
      'server-error',
      'server-error',
      'server-error',
      'no-answer',
    ]);
  });

  it('10006 holds that endpoint for the account until X-Bapi-Limit-Reset-Timestamp; a 403 holds the host 10 min', async () => {
    const reset = String(1_700_000_000_000 + 2_500);
    const { client, sent, advance } = clientWith([
      json(envelope(10006, {}, 'Too many visits!'), 200, { 'X-Bapi-Limit-Reset-Timestamp': reset }),
      json(envelope(0, {})),
      json(envelope(0, {})),
      json('access too frequent', 403),
    ]);
    const err = await client.signed('GET', '/v5/position/list', {}, CREDS).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VenueRateLimited);
    expect(err).toMatchObject({ status: 429, code: 10006, retryAfterSeconds: 3, venue: 'Bybit' });
    const before = sent.length;
    expect(
      await client.signed('GET', '/v5/position/list', {}, CREDS).catch((e: unknown) => e),
    ).toBeInstanceOf(VenueRateLimited);
    expect(sent).toHaveLength(before);
    await client.signed('GET', '/v5/account/wallet-balance', {}, CREDS); // another endpoint goes
    await advance(2_600);
    await client.signed('GET', '/v5/position/list', {}, CREDS);
    const ban = await client.signed('GET', '/v5/x', {}, CREDS).catch((e: unknown) => e);
    expect(ban).toMatchObject({ status: 403, retryAfterSeconds: 600 });
    expect(await client.publicGet('/v5/market/tickers').catch((e: unknown) => e)).toBeInstanceOf(
      VenueRateLimited,
    );
  });

  it("an envelope that is not Bybit's is VenueAnswerUnreadable", async () => {
    const { client } = clientWith([json('{"code":0}')]);
    const err = await client.signed('GET', '/v5/x', {}, CREDS).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VenueAnswerUnreadable);
    expect(err).toMatchObject({ venue: 'Bybit' });
  });
});

describe("the account's order budget", () => {
  it('takes 10 orders at once, queues the next into the following window, refuses one beyond the wait', async () => {
    const { clock, advance } = manualClock();
    const budget = new OrderBudget(clock, { perWindow: 10, windowMs: 1100, maxWaitMs: 2500 });
    const started: number[] = [];
    const takes = Array.from({ length: 30 }, (_, i) =>
      budget.take('k').then(
        () => started.push(i),
        (err: unknown) => err,
      ),
    );
    await advance(0);
    expect(started).toHaveLength(10);
    await advance(1_100);
    expect(started).toHaveLength(20);
    await advance(1_100);
    expect(started).toHaveLength(30);
    expect(started).toEqual(Array.from({ length: 30 }, (_, i) => i));
    await Promise.all(takes);
    // 21 more at once, with the last window still full: 10 wait 1.1 s, 10 wait 2.2 s, the last would wait
    // 3.3 s, longer than 2.5 s: refused, never sent.
    const more = Array.from({ length: 21 }, () =>
      budget.take('k').then(
        () => 'sent',
        (e: unknown) => e,
      ),
    );
    await advance(2_200);
    const done = await Promise.all(more);
    expect(done.filter((m) => m === 'sent')).toHaveLength(20);
    expect(done.at(-1)).toBeInstanceOf(VenueRateLimited);
    expect(done.at(-1)).toMatchObject({ code: 10006, venue: 'Bybit', retryAfterSeconds: 4 });
  });

  it('keeps one budget per account', async () => {
    const { clock } = manualClock();
    const budget = new OrderBudget(clock, { perWindow: 1, windowMs: 1000, maxWaitMs: 0 });
    await budget.take('a');
    await budget.take('b');
    expect(await budget.take('a').catch((e: unknown) => e)).toBeInstanceOf(VenueRateLimited);
  });
});
