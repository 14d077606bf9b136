import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../server/modules/news/proxy/address-filter';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { proxyApp, tableResolver } from './proxy.support';

/**
 * Every payload here must be refused with a 4xx and a detail, and no connection may be opened. Names
 * resolve through a table (never DNS); the public address in `mixed.test` is never contacted because
 * the private one next to it refuses the whole answer first.
 */
const PAYLOADS: readonly string[] = [
  'http://127.0.0.1/',
  'http://localhost/',
  'http://127.1/',
  'http://2130706433/',
  'http://0x7f000001/',
  'http://0177.0.0.1/',
  'http://0.0.0.0/',
  'http://[::1]/',
  'http://[::]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:a9fe:a9fe]/latest/meta-data/',
  'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
  'http://metadata.google.internal/computeMetadata/v1/',
  'http://10.0.0.1/',
  'http://172.16.5.4/',
  'http://192.168.1.1/router.png',
  'http://100.64.0.1/',
  'http://100.100.100.200/latest/meta-data/',
  'http://[fd00:ec2::254]/latest/meta-data/',
  'http://[fe80::1]/',
  'http://224.0.0.1/',
  'http://255.255.255.255/',
  'http://198.18.0.1/',
  'http://[64:ff9b::7f00:1]/',
  'http://[2002:7f00:1::]/',
  'http://[2620:4f:8000::53]/',
  'http://[::127.0.0.1]/',
  'http://[64:ff9b:1::a00:1]/',
  'http://internal.test/logo.png',
  'http://mixed.test/logo.png',
  'http://mapped.test/logo.png',
  'http://v6local.test/logo.png',
  'http://nonexistent.invalid/logo.png',
  'file:///etc/passwd',
  'gopher://127.0.0.1:70/_GET',
  'ftp://files.test/logo.png',
  'javascript:alert(1)',
  'data:image/png;base64,iVBORw0KGgo=',
  'http://user:secret@img.test/logo.png',
  'http://img.test:22/logo.png',
  'http://img.test:6379/',
  '//img.test/logo.png',
  'not a url',
];

describe('image proxy: SSRF payloads', () => {
  const resolve = tableResolver({
    localhost: ['127.0.0.1', '::1'],
    'metadata.google.internal': ['169.254.169.254'],
    'internal.test': ['10.0.0.5'],
    'mixed.test': ['93.184.216.34', '127.0.0.1'],
    'mapped.test': ['::ffff:10.0.0.1'],
    'v6local.test': ['fd12:3456::1'],
    'files.test': ['93.184.216.34'],
    'img.test': ['93.184.216.34'],
  });
  let t: Awaited<ReturnType<typeof proxyApp>>;
  beforeAll(async () => {
    t = await proxyApp({ resolve });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('lists at least 25 payloads', () => {
    expect(PAYLOADS.length).toBeGreaterThanOrEqual(25);
  });

  it.each(PAYLOADS)('refuses %s with a 4xx and a detail, without connecting', async (payload) => {
    const res = await t.app.inject(`/api/proxy/image?url=${encodeURIComponent(payload)}`);
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).toBeLessThan(500);
    expect(typeof (res.json() as { detail: unknown }).detail).toBe('string');
    expect(t.proxy.stats.connects).toBe(0);
  });

  it('refuses a missing url with a 422', async () => {
    const res = await t.app.inject('/api/proxy/image');
    expect(res.statusCode).toBe(422);
    expect(t.proxy.stats.connects).toBe(0);
  });

  it('classifies addresses: public unicast only', () => {
    for (const ip of [
      '8.8.8.8',
      '1.1.1.1',
      '2606:4700::1111',
      '2001:4860:4860::8888',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
      '2620:4f:7fff::1',
    ])
      expect(isPublicAddress(ip), ip).toBe(true);
    for (const ip of [
      '127.0.0.1',
      '10.1.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '::1',
      'fe80::1',
      'fc00::1',
      'ff02::1',
      '2001:db8::1',
      '::ffff:192.168.0.1',
      '64:ff9b::a00:1',
      '64:ff9b:1::808:808', // local-use NAT64
      '0.0.0.0',
      '::',
      '192.0.0.9',
      '192.175.48.1', // AS112
      '198.18.0.1',
      '240.0.0.1',
      '255.255.255.255',
      'fe80::1%eth0',
      'fec0::1', // site-local
      'fd00:ec2::254',
      '::8.8.8.8', // IPv4-compatible, either notation
      '::808:808',
      '::ffff:0:808:808', // IPv4-translated
      '2002:a00:1::1', // 6to4 to 10.0.0.1
      '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
      '2001:2::1', // benchmarking
      '2620:4f:8000::1', // AS112 for IPv6 (RFC 7534), outside 2001::/23
      '5f00::1', // SRv6
      '127.1',
      '0x7f000001',
      'x',
    ])
      expect(isPublicAddress(ip), ip).toBe(false);
  });
});

describe('image proxy in the app', () => {
  let t: TestApp;
  beforeAll(async () => {
    const pglite = useDatabase(dbTargets()[0]);
    t = await startTestApp(pglite);
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each([
    'http://127.0.0.1:8080/x.png',
    'http://[::1]/x.png',
    'http://169.254.169.254/',
    'file:///etc/hosts',
  ])('is wired at /api/proxy/image and refuses %s', async (payload) => {
    const res = await t.app.inject(`/api/proxy/image?url=${encodeURIComponent(payload)}`);
    expect([400, 403]).toContain(res.statusCode);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});
