import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WatchlistItems } from '../../src/contracts/watchlist';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';

describe.each(dbTargets())('watchlist API on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let ann: { authorization: string };
  let bob: { authorization: string };

  beforeAll(async () => {
    t = await startTestApp(target);
    ann = await signUpAndLogIn(t.app, 'ann');
    bob = await signUpAndLogIn(t.app, 'bob');
  });
  afterAll(() => t.close());

  const list = async (auth: { authorization: string }) => {
    const res = await t.app.inject({ url: '/api/watchlist/', headers: auth });
    expect(res.statusCode).toBe(200);
    return WatchlistItems.parse(res.json()).map((i) => i.ticker);
  };
  const add = (auth: { authorization: string }, payload: unknown) =>
    t.app.inject({ method: 'POST', url: '/api/watchlist/', headers: auth, payload: payload as object });
  const remove = (auth: { authorization: string }, ticker: string) =>
    t.app.inject({ method: 'DELETE', url: `/api/watchlist/${ticker}`, headers: auth });

  it('refuses every call without a token', async () => {
    for (const [method, url] of [
      ['GET', '/api/watchlist/'],
      ['POST', '/api/watchlist/'],
      ['DELETE', '/api/watchlist/BTC'],
    ] as const) {
      const res = await t.app.inject({
        method,
        url,
        payload: method === 'POST' ? { ticker: 'BTC' } : undefined,
      });
      expect(res.statusCode, `${method} ${url}`).toBe(401);
      expect(res.json()).toEqual({ detail: 'Not authenticated' });
    }
  });

  it('starts empty, adds tickers upper-cased and keeps them in the order added', async () => {
    expect(await list(ann)).toEqual([]);
    const first = await add(ann, { ticker: ' eth ' });
    expect(first.statusCode).toBe(201);
    expect(first.json()).toEqual({ ticker: 'ETH' });
    expect((await add(ann, { ticker: 'BTC' })).statusCode).toBe(201);
    expect(await list(ann)).toEqual(['ETH', 'BTC']);
  });

  it('adds the same ticker twice as one item (idempotent, 200 the second time)', async () => {
    const again = await add(ann, { ticker: 'eth' });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ ticker: 'ETH' });
    expect(await list(ann)).toEqual(['ETH', 'BTC']);
  });

  it('keeps each user to their own list', async () => {
    expect(await list(bob)).toEqual([]);
    await add(bob, { ticker: 'SOL' });
    expect(await list(bob)).toEqual(['SOL']);
    expect(await list(ann)).toEqual(['ETH', 'BTC']);
    expect((await remove(bob, 'ETH')).statusCode).toBe(404);
    expect(await list(ann)).toContain('ETH');
  });

  it('refuses an unsupported ticker and a malformed body with a detail', async () => {
    const unknown = await add(ann, { ticker: 'notacoin' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toEqual({ detail: 'Unknown ticker: NOTACOIN.' });
    const missing = await add(ann, {});
    expect(missing.statusCode).toBe(422);
    expect(missing.json()).toMatchObject({ detail: [{ loc: ['body', 'ticker'] }] });
    const symbols = await add(ann, { ticker: 'BTC/USDT' });
    expect(symbols.statusCode).toBe(422);
    expect(await list(ann)).toEqual(['ETH', 'BTC']);
  });

  it('deletes a ticker in any case, and answers 404 with a detail when it is not there', async () => {
    const gone = await remove(ann, 'eth');
    expect(gone.statusCode).toBe(204);
    expect(gone.body).toBe('');
    expect(await list(ann)).toEqual(['BTC']);
    const again = await remove(ann, 'ETH');
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual({ detail: 'ETH is not on your watchlist.' });
  });
});
