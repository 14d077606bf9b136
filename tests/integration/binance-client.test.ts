import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BinanceClient,
  VenueRateLimited,
  VenueUnreachable,
  signQuery,
} from '../../server/modules/exchanges/binance-client';
import { ExchangeError } from '../../server/modules/trading/exchange-error';
import { startSignedDouble, type SignedDouble } from '../fixtures/binance-signed-double';

/** The example Binance publishes for HMAC-signed USD-M requests. */
const EXAMPLE = {
  apiKey: 'dbefbc809e3e83c283a984c3a1459732ea7db1360ca80c5c2c8867408d28cc83',
  secret: '2b5eb11e18796d12d88f13dc27dbbd02c2cc51ff7059765ed9821957d82bb4d9',
  query:
    'symbol=BTCUSDT&side=BUY&type=LIMIT&quantity=1&price=9000&timeInForce=GTC&recvWindow=5000&timestamp=1591702613943',
  signature: '3c661234138461fcc7a7d8746c6558c9842d4e10870d2ecbedf7777cad694af9',
};

describe('Binance signed REST client against the local double', () => {
  let double: SignedDouble;
  const creds = { apiKey: EXAMPLE.apiKey, secret: EXAMPLE.secret };

  beforeAll(async () => {
    double = await startSignedDouble();
    double.keys.set(EXAMPLE.apiKey, { ...creds });
  });
  afterAll(() => double.close());

  it("signs exactly as Binance's published example", () => {
    expect(signQuery(EXAMPLE.secret, EXAMPLE.query)).toBe(EXAMPLE.signature);
  });

  it('the double accepts that signature only with a fresh timestamp, and refuses a tampered one', async () => {
    const fresh = EXAMPLE.query.replace('1591702613943', String(Date.now()));
    const path = '/fapi/v2/account';
    const ask = (q: string) =>
      fetch(`${double.url}${path}?${q}`, { headers: { 'X-MBX-APIKEY': EXAMPLE.apiKey } });
    const ok = await ask(`${fresh}&signature=${signQuery(EXAMPLE.secret, fresh)}`);
    expect(ok.status).toBe(200);
    const stale = await ask(`${EXAMPLE.query}&signature=${EXAMPLE.signature}`);
    expect(stale.status).toBe(400);
    expect(await stale.json()).toEqual({
      code: -1021,
      msg: 'Timestamp for this request is outside of the recvWindow.',
    });
    const tampered = await ask(
      `${fresh.replace('quantity=1', 'quantity=2')}&signature=${signQuery(EXAMPLE.secret, fresh)}`,
    );
    expect(await tampered.json()).toEqual({ code: -1022, msg: 'Signature for this request is not valid.' });
    const noKey = await fetch(`${double.url}${path}?${fresh}`);
    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toEqual({ code: -2014, msg: 'API-key format invalid.' });
  });

  it('sends timestamp and recvWindow, and the signature last', async () => {
    const client = new BinanceClient({ baseUrl: double.url, recvWindow: 3000 });
    await client.signed('GET', '/fapi/v2/account', { symbol: 'BTCUSDT' }, creds);
    const last = double.requests.at(-1) ?? '';
    expect(last).toMatch(
      /^GET \/fapi\/v2\/account\?symbol=BTCUSDT&recvWindow=3000&timestamp=\d+&signature=[0-9a-f]{64}$/,
    );
  });

  it('turns refusals into ExchangeError with Binance code and message', async () => {
    const client = new BinanceClient({ baseUrl: double.url });
    const err = await client
      .signed('GET', '/fapi/v2/account', {}, { apiKey: 'Nobody0Key0123456', secret: 'x' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExchangeError);
    expect(err).toMatchObject({ code: -2015, msg: 'Invalid API-key, IP, or permissions for action.' });
  });

  it('honours Retry-After on 418 and 429 without calling again inside the window', async () => {
    let now = Date.now();
    const client = new BinanceClient({ baseUrl: double.url, now: () => now });
    await client.syncTime();
    double.limit(418, 120);
    const banned = await client.signed('GET', '/fapi/v2/account', {}, creds).catch((e: unknown) => e);
    expect(banned).toBeInstanceOf(VenueRateLimited);
    expect(banned).toMatchObject({ status: 418, retryAfterSeconds: 120, code: -1003 });
    const count = double.requests.length;
    const again = await client.signed('GET', '/fapi/v2/account', {}, creds).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(VenueRateLimited);
    expect(double.requests.length).toBe(count);
    now += 121_000;
    double.clockSkewMs = 121_000;
    await expect(client.signed('GET', '/fapi/v2/account', {}, creds)).resolves.toMatchObject({
      canTrade: true,
    });
    double.clockSkewMs = 0;
  });

  it('reads a Retry-After given as an HTTP-date, and waits a minute when there is none it can read', async () => {
    let now = Date.UTC(2025, 0, 1, 12, 0, 0);
    let retryAfter: string | null = new Date(now + 30_000).toUTCString();
    let calls = 0;
    const client = new BinanceClient({
      baseUrl: 'http://127.0.0.1:9',
      now: () => now,
      fetch: () => {
        calls += 1;
        const headers: Record<string, string> = retryAfter === null ? {} : { 'retry-after': retryAfter };
        return Promise.resolve(
          new Response('{"code":-1003,"msg":"Too many requests."}', { status: 429, headers }),
        );
      },
    });
    const first = await client.publicGet('/fapi/v1/ticker/price').catch((e: unknown) => e);
    expect(first).toMatchObject({ status: 429, retryAfterSeconds: 30, code: -1003 });
    now += 29_000;
    await client.publicGet('/fapi/v1/ticker/price').catch(() => undefined);
    expect(calls).toBe(1);
    now += 1_000;
    for (const header of ['soon', null]) {
      retryAfter = header;
      const limited = await client.publicGet('/fapi/v1/ticker/price').catch((e: unknown) => e);
      expect(limited, String(header)).toMatchObject({ retryAfterSeconds: 60 });
      now += 60_000;
    }
    expect(calls).toBe(3);
  });

  it('reports an unreachable host as VenueUnreachable, without the signed URL', async () => {
    const client = new BinanceClient({ baseUrl: 'http://127.0.0.1:9', timeoutMs: 2000 });
    const err = await client.signed('GET', '/fapi/v2/account', {}, creds).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VenueUnreachable);
    expect(String((err as Error).message)).not.toContain('signature');
    expect(String((err as Error).message)).not.toContain(EXAMPLE.apiKey);
  });
});
