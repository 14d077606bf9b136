import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { OrderRequest } from '../../src/contracts/trading';
import { zodToIssues } from '../../server/plugins/errors';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';

/** Routes under /api the document leaves out on purpose, each with the reason. */
const EXCLUDED: Record<string, string> = {
  'GET /api/openapi.json': 'the document itself',
  'GET /api/ws/prices': 'a WebSocket upgrade: no request and answer OpenAPI can describe',
  'GET /api/ws/positions': 'a WebSocket upgrade: no request and answer OpenAPI can describe',
};

/** What bots and scripts use: each must be in the document with these methods. */
const KEY_OPERATIONS: [string, string][] = [
  ['post', '/api/auth/token'],
  ['post', '/api/auth/refresh'],
  ['post', '/api/auth/logout'],
  ['get', '/api/price/{symbol}'],
  ['get', '/api/klines'],
  ['get', '/api/symbols'],
  ['get', '/api/signals'],
  ['get', '/api/signals/stream'],
  ['post', '/api/orders'],
  ['get', '/api/positions'],
  ['get', '/api/account'],
  ['get', '/api/account/balance'],
  ['get', '/api/watchlist/'],
  ['post', '/api/watchlist/'],
  ['delete', '/api/watchlist/{ticker}'],
  ['get', '/api/rules/'],
  ['post', '/api/rules/'],
  ['patch', '/api/rules/{id}'],
  ['get', '/api/exchanges/'],
  ['post', '/api/exchanges/'],
  ['delete', '/api/exchanges/{id}'],
  ['get', '/api/healthz'],
];

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

type Json = Record<string, unknown>;
interface Operation {
  parameters?: { in: string; name: string; required?: boolean }[];
  requestBody?: { content: Record<string, { schema: Json }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema: Json }> }>;
  security?: Record<string, string[]>[];
}
interface OpenApi {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Json>; securitySchemes: Record<string, Json> };
}

/** `/api/rules/:id` as OpenAPI writes it: `/api/rules/{id}`. */
const openapiPath = (url: string) => url.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');

/** Every `$ref` in the document, with where it was found. */
function refsOf(value: unknown, at: string, found: [string, string][] = []): [string, string][] {
  if (Array.isArray(value)) value.forEach((item, i) => refsOf(item, `${at}/${i}`, found));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') found.push([at, item]);
      else refsOf(item, `${at}/${key}`, found);
    }
  }
  return found;
}

/** Follows a local JSON pointer (`#/components/schemas/X`) through the document. */
function resolve(doc: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  return ref
    .slice(2)
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>(
      (node, part) => (node !== null && typeof node === 'object' ? (node as Json)[part] : undefined),
      doc,
    );
}

describe.each(dbTargets())('the OpenAPI document on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  const routes: { method: string; url: string }[] = [];
  let doc: OpenApi;

  beforeAll(async () => {
    t = await startTestApp(
      target,
      {},
      {
        onRoute: (route) => {
          for (const method of [route.method].flat()) {
            if (method === 'HEAD' || !route.url.startsWith('/api/')) continue;
            routes.push({ method, url: route.url });
          }
        },
      },
    );
    const res = await t.app.inject('/api/openapi.json');
    expect(res.statusCode).toBe(200);
    doc = JSON.parse(res.body) as OpenApi;
  }, 60_000);
  afterAll(() => t?.close());

  it('is served as JSON with the headers of every API answer', async () => {
    const res = await t.app.inject('/api/openapi.json');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
  });

  it('is an OpenAPI 3 document with the app version and a bearer JWT scheme', () => {
    expect(doc.openapi).toMatch(/^3\.[01]\.\d+$/);
    expect(doc.info.title).toBeTruthy();
    expect(doc.info.version).toBe(t.config.version);
    expect(doc.components.securitySchemes.bearerAuth).toEqual({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
    });
  });

  it('describes every route the app registers under /api, but the ones left out on purpose', () => {
    expect(routes.length).toBeGreaterThan(60);
    const missing = routes
      .filter(({ method, url }) => !(`${method} ${url}` in EXCLUDED))
      .filter(({ method, url }) => doc.paths[openapiPath(url)]?.[method.toLowerCase()] === undefined)
      .map(({ method, url }) => `${method} ${url}`);
    expect(missing).toEqual([]);
    // The exclusions are real routes (a renamed one would leave a stale entry) and really left out.
    for (const key of Object.keys(EXCLUDED)) {
      const [method = '', url = ''] = key.split(' ');
      expect(routes, key).toContainEqual({ method, url });
      expect(doc.paths[openapiPath(url)]?.[method.toLowerCase()], key).toBeUndefined();
    }
    // …and the document describes nothing that is not a route.
    const registered = new Set(routes.map((r) => `${r.method.toLowerCase()} ${openapiPath(r.url)}`));
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of Object.keys(item).filter((k) => METHODS.includes(k))) {
        expect(registered, `${method} ${path}`).toContain(`${method} ${path}`);
      }
    }
  });

  it('lists the operations bots and scripts use', () => {
    for (const [method, path] of KEY_OPERATIONS) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
  });

  it('has answers for every operation, and each path parameter declared', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item).filter(([k]) => METHODS.includes(k))) {
        const where = `${method} ${path}`;
        const codes = Object.keys(op.responses ?? {});
        expect(codes.length, where).toBeGreaterThan(0);
        expect(
          codes.some((c) => /^[23]/.test(c)),
          `${where} has a success answer`,
        ).toBe(true);
        for (const answer of Object.values(op.responses ?? {})) {
          expect(answer.description, where).toBeTruthy();
        }
        const declared = (op.parameters ?? []).filter((p) => p.in === 'path');
        const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
        expect(declared.map((p) => p.name).sort(), where).toEqual([...names].sort());
        expect(
          declared.every((p) => p.required === true),
          where,
        ).toBe(true);
      }
    }
  });

  it('resolves every $ref', () => {
    const refs = refsOf(doc, '#');
    expect(refs.length).toBeGreaterThan(100);
    const broken = refs
      .filter(([, ref]) => resolve(doc, ref) === undefined)
      .map(([at, ref]) => `${at} → ${ref}`);
    expect(broken).toEqual([]);
  });

  it('takes the order request body from the contract, with its required fields', () => {
    const op = doc.paths['/api/orders']?.post;
    const ref = op?.requestBody?.content['application/json']?.schema.$ref;
    expect(ref).toBe('#/components/schemas/OrderRequestInput');
    const schema = resolve(doc, ref as string) as { required?: string[]; properties?: Json };
    const contract = z.toJSONSchema(OrderRequest, { io: 'input', unrepresentable: 'any' });
    expect(contract.required?.length).toBeGreaterThan(0);
    expect([...(schema.required ?? [])].sort()).toEqual([...(contract.required ?? [])].sort());
    expect(Object.keys(schema.properties ?? {}).sort()).toEqual(
      Object.keys(contract.properties ?? {}).sort(),
    );
    expect(op?.security).toEqual([{ bearerAuth: [] }]);
    expect(op?.responses?.['200']?.content?.['application/json']?.schema.$ref).toBe(
      '#/components/schemas/OrderResponse',
    );
  });

  it('documents the 422 and {detail} answers the error plugin sends', () => {
    const op = doc.paths['/api/orders']?.post;
    const invalid = op?.responses?.['422']?.content?.['application/json']?.schema.$ref;
    const body = resolve(doc, invalid as string) as { properties: { detail: { items: { $ref: string } } } };
    const issue = resolve(doc, body.properties.detail.items.$ref) as { required: string[] };
    expect([...issue.required].sort()).toEqual(['loc', 'msg', 'type']);
    expect(op?.responses?.['401']).toBeDefined();
    const other = op?.responses?.default?.content?.['application/json']?.schema.$ref;
    expect((resolve(doc, other as string) as { required: string[] }).required).toEqual(['detail']);
    // A public route names no scheme and no 401.
    expect(doc.paths['/api/klines']?.get?.security).toBeUndefined();
    expect(doc.paths['/api/klines']?.get?.responses?.['401']).toBeUndefined();
  });

  it('leaves validation as it was: a bad order gets the contract’s own 422, an absent body too', async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'openapi');
    const bad = { symbol: 'BTCUSDT', side: 'sideways', amount: -5 };
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/orders',
      headers: { authorization },
      payload: bad,
    });
    expect(res.statusCode).toBe(422);
    const expected = OrderRequest.safeParse(bad);
    expect(expected.success).toBe(false);
    if (!expected.success) expect(res.json()).toEqual({ detail: zodToIssues(expected.error, 'body') });

    const empty = await t.app.inject({ method: 'POST', url: '/api/orders', headers: { authorization } });
    const none = OrderRequest.safeParse(undefined);
    expect(empty.statusCode).toBe(422);
    if (!none.success) expect(empty.json()).toEqual({ detail: zodToIssues(none.error, 'body') });
  });
});
