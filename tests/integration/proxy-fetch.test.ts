import { mkdtemp, readdir, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImageCache } from '../../server/modules/news/proxy/image-cache';
import { proxyApp, tableResolver } from './proxy.support';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/** An image server on 127.0.0.1 with the shapes the proxy must handle. */
async function imageServer() {
  const hits: string[] = [];
  let port = 0;
  const server = http.createServer((req, res) => {
    hits.push(`${req.headers.host} ${req.url}`);
    switch (req.url) {
      case '/ok.png':
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length });
        return void res.end(PNG);
      case '/page':
        res.writeHead(200, { 'content-type': 'text/html' });
        return void res.end('<script>alert(1)</script>');
      case '/svg-as-text':
        res.writeHead(200, { 'content-type': 'text/plain' });
        return void res.end('<svg/>');
      case '/big-declared':
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': 6 * 1024 * 1024 });
        return void res.end(Buffer.alloc(6 * 1024 * 1024));
      case '/big-chunked':
        res.writeHead(200, { 'content-type': 'image/png' });
        for (let i = 0; i < 6; i++) res.write(Buffer.alloc(1024 * 1024));
        return void res.end();
      case '/slow':
        res.writeHead(200, { 'content-type': 'image/png' });
        return void res.write(PNG.subarray(0, 4));
      case '/to-private':
        res.writeHead(302, { location: 'http://10.0.0.1/ok.png' });
        return void res.end();
      case '/to-metadata-name':
        res.writeHead(301, { location: '/x', 'content-length': 0 });
        return void res.end();
      case '/x':
        res.writeHead(302, { location: `http://metadata.test:${port}/ok.png` });
        return void res.end();
      case '/to-ok':
        res.writeHead(302, { location: `http://img2.test:${port}/ok.png` });
        return void res.end();
      case '/loop':
        res.writeHead(302, { location: '/loop' });
        return void res.end();
      case '/missing':
        res.writeHead(404, { 'content-type': 'image/png' });
        return void res.end();
      default:
        res.writeHead(500);
        res.end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
  return {
    port,
    hits,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('image proxy: fetching over loopback (test names resolve to 127.0.0.1, declared public)', () => {
  let img: Awaited<ReturnType<typeof imageServer>>;
  let t: Awaited<ReturnType<typeof proxyApp>>;
  let rebindAnswers = 0;
  const resolve = tableResolver({
    'img.test': ['127.0.0.1'],
    'img2.test': ['127.0.0.1'],
    'metadata.test': ['169.254.169.254'],
    // A rebinding name: checked once as 127.0.0.1, then it would answer a private address.
    'rebind.test': () => (rebindAnswers++ === 0 ? ['127.0.0.1'] : ['10.0.0.9']),
  });
  const get = (url: string) => t.app.inject(`/api/proxy/image?url=${encodeURIComponent(url)}`);

  beforeAll(async () => {
    img = await imageServer();
    t = await proxyApp({ resolve, testAllowlist: ['127.0.0.1'], ports: 'any', timeoutMs: 300 });
  });
  afterAll(async () => {
    await t?.close();
    await img?.close();
  });

  it('serves an image with nosniff, a cache lifetime and a sandbox CSP, then from the disk cache', async () => {
    const url = `http://img.test:${img.port}/ok.png`;
    const first = await get(url);
    expect(first.statusCode).toBe(200);
    expect(first.rawPayload.equals(PNG)).toBe(true);
    expect(first.headers['content-type']).toBe('image/png');
    expect(first.headers['x-content-type-options']).toBe('nosniff');
    expect(first.headers['cache-control']).toBe('public, max-age=86400');
    expect(first.headers['content-security-policy']).toContain('sandbox');
    expect(first.headers['x-proxy-cache']).toBe('miss');
    const hits = img.hits.length;
    const second = await get(url);
    expect(second.headers['x-proxy-cache']).toBe('hit');
    expect(second.rawPayload.equals(PNG)).toBe(true);
    expect(img.hits.length).toBe(hits);
  });

  it('follows a redirect to an allowed host and re-checks every hop', async () => {
    const res = await get(`http://img.test:${img.port}/to-ok`);
    expect(res.statusCode).toBe(200);
    expect(img.hits.at(-1)).toBe(`img2.test:${img.port} /ok.png`);
  });

  it('refuses redirects to private addresses, by literal or by name, before connecting to them', async () => {
    const before = t.proxy.stats.connects;
    const literal = await get(`http://img.test:${img.port}/to-private`);
    expect(literal.statusCode).toBe(403);
    const byName = await get(`http://img.test:${img.port}/to-metadata-name`);
    expect(byName.statusCode).toBe(403);
    expect(byName.json()).toEqual({ detail: 'The url points to a private or reserved address.' });
    // Only the loopback hops were connected: 1 + 2.
    expect(t.proxy.stats.connects - before).toBe(3);
  });

  it('stops after 3 redirects', async () => {
    const res = await get(`http://img.test:${img.port}/loop`);
    expect(res.statusCode).toBe(502);
    expect(res.json()).toEqual({ detail: 'Too many redirects.' });
  });

  it('connects to the address it checked: a name that rebinds after the check is never asked again', async () => {
    const asked = resolve.calls.filter((h) => h === 'rebind.test').length;
    const res = await get(`http://rebind.test:${img.port}/ok.png`);
    expect(res.statusCode).toBe(200);
    expect(resolve.calls.filter((h) => h === 'rebind.test').length - asked).toBe(1);
    expect(img.hits.at(-1)).toBe(`rebind.test:${img.port} /ok.png`);
  });

  it('refuses what is not an image, and images over 5 MB whether declared or streamed', async () => {
    expect((await get(`http://img.test:${img.port}/page`)).statusCode).toBe(415);
    expect((await get(`http://img.test:${img.port}/svg-as-text`)).statusCode).toBe(415);
    const declared = await get(`http://img.test:${img.port}/big-declared`);
    expect(declared.statusCode).toBe(413);
    expect(declared.json()).toEqual({ detail: 'The image is larger than 5 MB.' });
    expect((await get(`http://img.test:${img.port}/big-chunked`)).statusCode).toBe(413);
    expect((await get(`http://img.test:${img.port}/missing`)).statusCode).toBe(502);
  });

  it('gives up on a slow image at the timeout', async () => {
    const started = Date.now();
    const res = await get(`http://img.test:${img.port}/slow`);
    expect(res.statusCode).toBe(504);
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

describe('image cache', () => {
  it('keeps its size under the bound by evicting the least recently used', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'sc-cache-'));
    try {
      const cache = new ImageCache(dir, 3500, 60_000, () => 0);
      await cache.open();
      const body = Buffer.alloc(1000);
      await cache.put('a', { contentType: 'image/png', body });
      await cache.put('b', { contentType: 'image/png', body });
      await cache.put('c', { contentType: 'image/png', body });
      expect(await cache.get('a')).not.toBeNull(); // a is now the most recent
      await cache.put('d', { contentType: 'image/png', body });
      expect(cache.bytes).toBeLessThanOrEqual(3500);
      expect(await cache.get('b')).toBeNull();
      expect((await cache.get('a'))?.contentType).toBe('image/png');
      expect(await readdir(dir)).toHaveLength(3);
      const reopened = new ImageCache(dir, 2500, 60_000, () => 0);
      await reopened.open();
      expect(reopened.bytes).toBeLessThanOrEqual(2500);
      expect(await readdir(dir)).toHaveLength(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('fetches again after the entry expires', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'sc-cache-'));
    let now = 0;
    try {
      const cache = new ImageCache(dir, 10_000, 1000, () => now);
      await cache.open();
      await cache.put('a', { contentType: 'image/gif', body: Buffer.from('GIF89a') });
      now = 999;
      expect(await cache.get('a')).not.toBeNull();
      now = 1001;
      expect(await cache.get('a')).toBeNull();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
