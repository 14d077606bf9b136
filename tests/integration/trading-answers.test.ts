import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';

/**
 * The browser's trading tests answer with what this server really says: this test asks the running
 * app (in-process, on PGlite, at the simulator's seeded prices) and compares its answers with the
 * recorded ones in `src/services/trading/testing/server-answers.json`. `npm run fixtures:trading`
 * records them again (after a change of wording or shape, which this test then reports).
 */
const FILE = path.resolve(import.meta.dirname, '../../src/services/trading/testing/server-answers.json');
const RECORD = process.env.RECORD_FIXTURES === '1';

type Answer = { status: number; body: unknown };

/** The calls recorded, by name: what a browser test asks for. */
const CALLS = {
  'btc long 200': { url: '/api/orders', payload: { symbol: 'BTC/USDT', side: 'long', amount: 200 } },
  'btc long 150': { url: '/api/orders', payload: { symbol: 'BTC/USDT', side: 'long', amount: 150 } },
  'btc long 10': { url: '/api/orders', payload: { symbol: 'BTC/USDT', side: 'long', amount: 10 } },
  'eth short 250': { url: '/api/orders', payload: { symbol: 'ETH/USDT', side: 'short', amount: 250 } },
  'doge long 100': { url: '/api/orders', payload: { symbol: 'DOGE/USDT', side: 'long', amount: 100 } },
  'sol long 150000': { url: '/api/orders', payload: { symbol: 'SOL/USDT', side: 'long', amount: 150_000 } },
  'preview btc long 200': {
    url: '/api/orders/preview',
    payload: { symbol: 'BTC/USDT', side: 'long', amount: 200 },
  },
  'preview btc long 10': {
    url: '/api/orders/preview',
    payload: { symbol: 'BTC/USDT', side: 'long', amount: 10 },
  },
  /** After the orders above: the account as `balance` and `positions` read it. */
  balance: { method: 'GET', url: '/api/account/balance' },
  positions: { method: 'GET', url: '/api/positions' },
  /** Then the closes: one position, then the rest. */
  'close eth': { url: '/api/close_position', payload: { symbol: 'ETH/USDT' } },
  'close all': { url: '/api/close_all_positions', payload: {} },
  /** Last, on a fresh short: a long against it, whose answer says it reduced the short. */
  'eth short 250 again': { url: '/api/orders', payload: { symbol: 'ETH/USDT', side: 'short', amount: 250 } },
  'eth long 100': { url: '/api/orders', payload: { symbol: 'ETH/USDT', side: 'long', amount: 100 } },
} as const satisfies Record<string, { method?: 'GET'; url: string; payload?: object }>;

/** The shape of an answer and the words of its texts, with numbers and ids left out. */
function form(value: unknown): unknown {
  if (typeof value === 'number') return 'number';
  if (typeof value === 'string') {
    return /^[0-9a-f-]{36}$/.test(value) ? 'id' : value.replace(/\d[\d,.]*/g, '#');
  }
  if (Array.isArray(value)) return value.map(form);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, form(v)]));
  }
  return value;
}

describe.each(dbTargets().slice(0, 1))('recorded trading answers (%s)', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  const answers: Record<string, Answer> = {};

  beforeAll(async () => {
    t = await startTestApp(target, { MARKET_SIM_TICK_MS: '60000' });
    const auth = await signUpAndLogIn(t.app, 'recorder');
    // The exchange's margin refusal is recorded: a max order of the trader's own lets 150,000 reach it.
    await t.app.inject({
      method: 'PUT',
      url: '/api/rules/risk',
      headers: auth,
      payload: { max_order_usd: 1e6 },
    });
    for (const [name, call] of Object.entries(CALLS)) {
      const res =
        'payload' in call
          ? await t.app.inject({
              method: 'POST',
              url: call.url,
              headers: auth,
              payload: call.url === '/api/orders' ? { type: 'market', ...call.payload } : call.payload,
            })
          : await t.app.inject({ method: 'GET', url: call.url, headers: auth });
      answers[name] = { status: res.statusCode, body: res.json() };
    }
    if (RECORD) await writeFile(FILE, `${JSON.stringify(answers, null, 2)}\n`);
  });
  afterAll(() => t.close());

  it('are what the server answers now (same shapes, same words)', async () => {
    const recorded = JSON.parse(await readFile(FILE, 'utf8')) as Record<string, Answer>;
    expect(Object.keys(recorded).sort()).toEqual(Object.keys(CALLS).sort());
    for (const name of Object.keys(CALLS)) {
      expect(form(recorded[name]), `${name}: run npm run fixtures:trading`).toEqual(form(answers[name]));
    }
  });
});
