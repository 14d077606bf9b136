import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import errorsPlugin, { appError, DATABASE_UNAVAILABLE, parseRequest } from '../../server/plugins/errors';

const app = Fastify({ logger: false });

beforeAll(async () => {
  await app.register(errorsPlugin);
  app.get('/app-error', async () => {
    throw appError('CONFLICT', 'That email is already registered.');
  });
  app.get('/rate', async () => {
    throw appError('RATE_LIMITED', undefined, { 'retry-after': '30' });
  });
  app.post('/validate', async (req) => {
    const body = parseRequest(z.object({ email: z.email(), age: z.number().int() }), req.body);
    return body;
  });
  app.get('/query', async (req) =>
    parseRequest(z.object({ limit: z.coerce.number().max(50) }), req.query, 'query'),
  );
  app.get('/db-down', async () => {
    // What drizzle throws when the pool cannot connect: a wrapper whose cause is the socket's error.
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    throw new Error('Failed query: select 1\nparams: ', { cause: refused });
  });
  app.get('/db-cut', async () => {
    throw new Error('Connection terminated unexpectedly');
  });
  app.get('/bug', async () => {
    throw new Error('secret internals at /srv/app.ts:42');
  });
  await app.ready();
});
afterAll(() => app.close());

describe('error mapping', () => {
  it('maps an AppError to its status and {detail}', async () => {
    const res = await app.inject('/app-error');
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ detail: 'That email is already registered.' });
  });

  it('keeps extra headers such as Retry-After', async () => {
    const res = await app.inject('/rate');
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toBe('30');
    expect(res.json()).toEqual({ detail: 'Too many requests. Please try again later.' });
  });

  it('answers a database that cannot be reached with 503, a sentence and Retry-After, not a 500', async () => {
    for (const url of ['/db-down', '/db-cut']) {
      const res = await app.inject(url);
      expect(res.statusCode, url).toBe(503);
      expect(res.headers['retry-after']).toBe('2');
      expect(res.json()).toEqual({ detail: DATABASE_UNAVAILABLE });
    }
  });

  it('maps zod failures to a FastAPI 422 list with locations', async () => {
    const res = await app.inject({ method: 'POST', url: '/validate', payload: { email: 'nope', age: 1.5 } });
    expect(res.statusCode).toBe(422);
    const body = res.json() as { detail: { loc: unknown[]; msg: string; type: string }[] };
    expect(body.detail.map((d) => d.loc)).toEqual([
      ['body', 'email'],
      ['body', 'age'],
    ]);
    for (const d of body.detail) {
      expect(typeof d.msg).toBe('string');
      expect(d.type.length).toBeGreaterThan(0);
    }
  });

  it('names the query as the location for query failures', async () => {
    const res = await app.inject('/query?limit=500');
    expect(res.statusCode).toBe(422);
    expect((res.json() as { detail: { loc: unknown[] }[] }).detail[0]?.loc).toEqual(['query', 'limit']);
  });

  it('answers malformed JSON with a 400 detail', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/validate',
      headers: { 'content-type': 'application/json' },
      payload: '{"email":',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ detail: 'Request body is not valid JSON.' });
  });

  it('never sends a stack trace or internal message for a bug', async () => {
    const res = await app.inject('/bug');
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ detail: 'Internal Server Error' });
    expect(res.body).not.toContain('srv/app.ts');
    expect(res.body).not.toContain('at ');
  });
});
