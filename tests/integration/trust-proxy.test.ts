import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';

/** Eleven failed logins for eleven different names, each claiming another client address. */
async function loginsFrom(t: TestApp): Promise<number[]> {
  const codes: number[] = [];
  for (let i = 0; i < 11; i++) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/token',
      remoteAddress: '127.0.0.1',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-forwarded-for': `198.51.100.${i + 1}`,
      },
      payload: `username=nobody${i}&password=wrong-password`,
    });
    codes.push(res.statusCode);
  }
  return codes;
}

describe('TRUST_PROXY', () => {
  it('accepts off, true, a hop count or addresses, and refuses anything else', () => {
    const parse = (v: string) => loadConfig({ TRUST_PROXY: v }, 'test').TRUST_PROXY;
    expect(parse('')).toBe(false);
    expect(parse('true')).toBe(true);
    expect(parse('2')).toBe(2);
    expect(parse('127.0.0.1, 10.0.0.0/8')).toEqual(['127.0.0.1', '10.0.0.0/8']);
    expect(() => parse('everyone')).toThrow(/TRUST_PROXY/);
  });
});

describe.each(dbTargets())('client addresses behind a proxy on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('ignores X-Forwarded-For by default: one address, one rate limit', async () => {
    t = await startTestApp(target);
    const codes = await loginsFrom(t);
    expect(codes.slice(0, 10).every((c) => c === 401)).toBe(true);
    expect(codes[10]).toBe(429);
  });

  it('believes the proxy named in TRUST_PROXY: each client gets its own limit', async () => {
    t = await startTestApp(target, { TRUST_PROXY: '127.0.0.1' });
    expect((await loginsFrom(t)).every((c) => c === 401)).toBe(true);
  });
});
