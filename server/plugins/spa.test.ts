import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import spaPlugin from './spa';

/** The page's Content-Security-Policy as directive → sources. */
function directives(header: unknown): Map<string, string[]> {
  return new Map(
    String(header)
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((words) => words[0] !== undefined && words[0] !== '')
      .map(([name = '', ...sources]) => [name, sources]),
  );
}

describe('the pages’ Content-Security-Policy', () => {
  let app: FastifyInstance;
  let distDir: string;
  beforeAll(async () => {
    distDir = await mkdtemp(path.join(tmpdir(), 'sc-spa-'));
    await writeFile(path.join(distDir, 'index.html'), '<!doctype html><div id="root"></div>');
    await writeFile(path.join(distDir, 'sw.js'), "self.addEventListener('push', () => undefined);");
    app = Fastify();
    await app.register(spaPlugin, { distDir, https: false });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await rm(distDir, { recursive: true, force: true });
  });

  it('serves the service worker at /sw.js as JavaScript, always revalidated, for the whole app', async () => {
    const res = await app.inject({ url: '/sw.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^(application|text)\/javascript/);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['service-worker-allowed']).toBe('/');
  });

  it("runs scripts of this origin only; TradingView's chart is a frame of its own origin", async () => {
    const res = await app.inject({ url: '/', headers: { accept: 'text/html' } });
    expect(res.statusCode).toBe(200);
    const csp = directives(res.headers['content-security-policy']);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('frame-src')).toEqual(["'self'", 'https://s.tradingview.com']);
    // The page asks TradingView's embed page whether it answers before showing the frame.
    expect(csp.get('connect-src')).toEqual(["'self'", 'https://s.tradingview.com']);
    expect(csp.get('default-src')).toEqual(["'self'"]);
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(String(res.headers['content-security-policy'])).not.toMatch(/\*|unsafe-eval|s3\.tradingview/);
  });

  it('sends the same policy on every page route', async () => {
    const home = await app.inject({ url: '/', headers: { accept: 'text/html' } });
    const reset = await app.inject({ url: '/reset-password?token=x', headers: { accept: 'text/html' } });
    expect(reset.headers['content-security-policy']).toBe(home.headers['content-security-policy']);
  });
});
