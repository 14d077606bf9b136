import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';

/** Routes that hold a connection open (sockets, the SSE stream), or would fetch what a caller names. */
const SKIP = [/^\/api\/ws\//, /^\/api\/signals\/stream$/, /^\/api\/proxy\//];
/** Everything remote points at a closed loopback port: nothing a fuzzed request does leaves the machine. */
const CLOSED = 'http://127.0.0.1:9';

interface Route {
  method: string;
  url: string;
}

/** A JSON value of any shape, including the ones a schema does not expect (deep, huge, odd strings). */
const junk = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 }),
  fc.record({
    symbol: fc.string(),
    amount: fc.oneof(fc.string(), fc.double(), fc.integer()),
    side: fc.string(),
  }),
);
const pathValue = fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), fc.uuid(), fc.integer().map(String));
const query = fc.dictionary(
  fc.constantFrom('limit', 'since', 'days', 'before', 'symbol', 'interval', 'q', 'id'),
  fc.string({ maxLength: 30 }),
  { maxKeys: 3 },
);

describe.each(dbTargets())('every JSON route, fuzzed, on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  const routes: Route[] = [];
  let auth = '';

  beforeAll(async () => {
    t = await startTestApp(
      target,
      {
        BINANCE_FAPI_URL: CLOSED,
        BINANCE_API_URL: CLOSED,
        BINANCE_DEMO_FAPI_URL: CLOSED,
        BINANCE_TIMEOUT_MS: '200',
      },
      {
        onRoute: (route) => {
          for (const method of [route.method].flat()) {
            if (method === 'HEAD' || method === 'OPTIONS') continue;
            if (!route.url.startsWith('/api/') || SKIP.some((re) => re.test(route.url))) continue;
            routes.push({ method, url: route.url });
          }
        },
      },
    );
    auth = (await signUpAndLogIn(t.app, 'fuzzer')).authorization;
  }, 60_000);
  afterAll(() => t?.close());

  it('answers malformed input with a 4xx and a detail, never a 5xx', async () => {
    expect(routes.length).toBeGreaterThan(60);
    const failures: string[] = [];
    const hit = new Set<string>();
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        junk,
        pathValue,
        query,
        fc.boolean(),
        async (route, body, param, q, signedIn) => {
          const url = route.url.replace(/:[A-Za-z_]+/g, () => encodeURIComponent(param));
          const res = await t.app.inject({
            method: route.method as 'GET',
            url,
            query: q,
            headers: {
              'content-type': 'application/json',
              'idempotency-key': randomUUID(),
              ...(signedIn ? { authorization: auth } : {}),
            },
            ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { payload: JSON.stringify(body) }),
          });
          hit.add(`${route.method} ${route.url}`);
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
          if (res.statusCode >= 500 && res.statusCode !== 503) {
            failures.push(`${route.method} ${url} → ${res.statusCode} ${res.body.slice(0, 200)}`);
          }
          if (res.statusCode >= 400 && res.headers['content-type']?.toString().includes('json')) {
            const parsed = JSON.parse(res.body) as { detail?: unknown };
            if (parsed.detail === undefined)
              failures.push(`${route.method} ${url} → ${res.statusCode} without detail`);
          }
        },
      ),
      { seed: 20261123, numRuns: 1500 },
    );
    expect(failures).toEqual([]);
    // The run reached (nearly) every route, and the schemas refused most of what it sent.
    expect(hit.size).toBeGreaterThanOrEqual(routes.length * 0.9);
    expect((statuses.get(422) ?? 0) + (statuses.get(400) ?? 0)).toBeGreaterThan(300);
  }, 240_000);
});
