import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Health } from '../../src/contracts/health';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';

describe.each(dbTargets())('app on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let distDir: string;

  beforeAll(async () => {
    distDir = await mkdtemp(path.join(tmpdir(), 'sc-dist-'));
    await mkdir(path.join(distDir, 'assets'));
    await writeFile(path.join(distDir, 'index.html'), '<!doctype html><title>Signal Console</title>');
    await writeFile(path.join(distDir, 'assets', 'app-1234.js'), 'console.log(1)');
    t = await startTestApp(target, {}, { distDir });
  });
  afterAll(async () => {
    await t.close();
    await rm(distDir, { recursive: true, force: true });
  });

  it('answers /api/healthz with the components and the offline stand-ins', async () => {
    const res = await t.app.inject('/api/healthz');
    expect(res.statusCode).toBe(200);
    const health = Health.parse(res.json());
    expect(health).toMatchObject({
      status: 'ok',
      degraded: [],
      db: target.name,
      dbOk: true,
      bus: 'memory',
      market: 'sim',
      news: ['replay'],
      exchange: 'paper',
      version: 'test',
    });
    expect(health.standins).toContain('simulated prices');
    expect(health.standins.includes('embedded database (PGlite)')).toBe(target.name === 'pglite');
  });

  it('reports degraded with 503 when the database stops answering', async () => {
    const broken = await startTestApp(target);
    await broken.database.close();
    await broken.app.health.probe();
    const res = await broken.app.inject('/api/healthz');
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({
      status: 'degraded',
      dbOk: false,
      degraded: ['database unreachable'],
    });
    await broken.app.close();
    // A second app starts inside the test: on a busy machine that alone can take half a minute.
  }, 120_000);

  it('names what each module reports degraded, and is ok again once it clears', async () => {
    let problem: string | null = 'market feed stalled';
    const unwatch = t.app.health.watch('fault-test', () => problem);
    try {
      const res = await t.app.inject('/api/healthz');
      expect(res.statusCode, 'a degraded part is named, but the server still serves').toBe(200);
      expect(res.json()).toMatchObject({ status: 'degraded', degraded: ['market feed stalled'] });
      problem = null;
      const ok = await t.app.inject('/api/healthz');
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toMatchObject({ status: 'ok', degraded: [] });
    } finally {
      unwatch();
    }
  });

  it('sends API answers with nosniff, no framing and no caching', async () => {
    const res = await t.app.inject('/api/healthz');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('answers unknown /api paths with a JSON 404, whatever the method', async () => {
    for (const method of ['GET', 'POST', 'DELETE'] as const) {
      const res = await t.app.inject({ method, url: '/api/no-such-thing', headers: { accept: 'text/html' } });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ detail: 'Not Found' });
    }
  });

  it.each(['/', '/reset-password?token=abc', '/payment/success', '/payment/cancel', '/payment/pending'])(
    'serves the app for the browser route %s',
    async (url) => {
      const res = await t.app.inject({ url, headers: { accept: 'text/html' } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toContain('text/html');
      expect(res.body).toContain('<title>Signal Console</title>');
    },
  );

  it('falls back to the app for other page loads and serves hashed assets as immutable', async () => {
    const page = await t.app.inject({ url: '/some/deep/link', headers: { accept: 'text/html' } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Signal Console');
    const asset = await t.app.inject('/assets/app-1234.js');
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toContain('immutable');
    const missing = await t.app.inject('/assets/missing.js');
    expect(missing.statusCode).toBe(404);
  });

  it('sends a CSP that allows only this origin', async () => {
    const res = await t.app.inject({ url: '/', headers: { accept: 'text/html' } });
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-eval');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});
