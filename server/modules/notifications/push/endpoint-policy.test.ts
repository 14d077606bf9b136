import { describe, expect, it } from 'vitest';
import { DEFAULT_PUSH_SERVICE_HOSTS } from '../../../config';
import type { ResolvedAddress } from '../../news/proxy/fetch-image';
import { PUSH_REFUSALS, PushEndpointPolicy, PushEndpointRefused } from './endpoint-policy';

/** A resolver answering from a table (no DNS is ever asked), counting what it was asked. */
function table(entries: Record<string, string[]>) {
  const asked: string[] = [];
  const resolve = async (host: string): Promise<ResolvedAddress[]> => {
    asked.push(host);
    const found = entries[host];
    if (found === undefined) throw new Error('ENOTFOUND');
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { resolve, asked };
}

async function refusal(policy: PushEndpointPolicy, endpoint: string): Promise<PushEndpointRefused> {
  try {
    await policy.target(endpoint);
  } catch (err) {
    if (err instanceof PushEndpointRefused) return err;
    throw err;
  }
  throw new Error(`${endpoint} was taken`);
}

describe('Web Push endpoint policy', () => {
  const dns = table({
    'fcm.googleapis.com': ['142.250.74.42'],
    'updates.push.services.mozilla.com': ['34.117.65.55', '2600:1901:0:92a9::'],
    'web.push.apple.com': ['17.188.168.14'],
    'wns2-par02p.notify.windows.com': ['20.42.128.104'],
    localhost: ['127.0.0.1', '::1'],
    'metadata.google.internal': ['169.254.169.254'],
    'rebound.example.com': ['10.0.0.7'],
    'half.example.com': ['93.184.216.34', '192.168.0.10'],
    'mapped.example.com': ['::ffff:10.0.0.1'],
  });

  it('refuses every loopback, private, link-local, metadata, unique-local and mapped address, by literal or by name', async () => {
    const any = new PushEndpointPolicy({ hosts: ['*'], resolve: dns.resolve });
    const endpoints = [
      'https://127.0.0.1/push/1',
      'https://127.1/push/1',
      'https://2130706433/push/1',
      'https://0x7f000001/push/1',
      'https://localhost/push/1',
      'https://[::1]/push/1',
      'https://[::]/push/1',
      'https://0.0.0.0/push/1',
      'https://10.0.0.1/push/1',
      'https://172.16.5.4/push/1',
      'https://192.168.1.20/push/1',
      'https://169.254.169.254/latest/meta-data/',
      'https://[fd00:ec2::254]/latest/meta-data/',
      'https://metadata.google.internal/computeMetadata/v1/',
      'https://100.64.0.1/push/1',
      'https://[fe80::1]/push/1',
      'https://[fc00::5]/push/1',
      'https://[::ffff:127.0.0.1]/push/1',
      'https://[::ffff:10.0.0.1]/push/1',
      'https://[::ffff:a9fe:a9fe]/push/1',
      'https://[64:ff9b::a00:1]/push/1',
      'https://rebound.example.com/push/1',
      'https://half.example.com/push/1',
      'https://mapped.example.com/push/1',
    ];
    for (const endpoint of endpoints) {
      expect((await refusal(any, endpoint)).detail, endpoint).toBe(PUSH_REFUSALS.privateAddress);
    }
  });

  it('takes only https on port 443, without credentials, at the push services’ hosts', async () => {
    const services = new PushEndpointPolicy({ hosts: DEFAULT_PUSH_SERVICE_HOSTS, resolve: dns.resolve });
    for (const endpoint of [
      'https://fcm.googleapis.com/fcm/send/abc:def',
      'https://updates.push.services.mozilla.com/wpush/v2/gAAAA',
      'https://web.push.apple.com/QGx1c3Rlcg',
      'https://wns2-par02p.notify.windows.com/w/?token=BQYAAA',
      'https://FCM.googleapis.com./fcm/send/abc',
    ]) {
      const { url, address } = await services.target(endpoint);
      expect(url.protocol).toBe('https:');
      expect(address.address).not.toBe('');
    }
    // Every address of a name must be public: the first one is what a push connects to.
    expect((await services.target('https://updates.push.services.mozilla.com/x')).address).toEqual({
      address: '34.117.65.55',
      family: 4,
    });

    const before = dns.asked.length;
    for (const [endpoint, detail] of [
      ['http://fcm.googleapis.com/fcm/send/abc', PUSH_REFUSALS.notHttps],
      ['ftp://fcm.googleapis.com/x', PUSH_REFUSALS.notHttps],
      ['https://fcm.googleapis.com:8443/fcm/send/abc', PUSH_REFUSALS.port],
      ['https://user:pw@fcm.googleapis.com/fcm/send/abc', PUSH_REFUSALS.credentials],
      ['https://push.example.com/x', PUSH_REFUSALS.notService('push.example.com')],
      [
        'https://fcm.googleapis.com.evil.example/x',
        PUSH_REFUSALS.notService('fcm.googleapis.com.evil.example'),
      ],
      ['https://xfcm.googleapis.com/x', PUSH_REFUSALS.notService('xfcm.googleapis.com')],
      ['https://notify.windows.com/x', PUSH_REFUSALS.notService('notify.windows.com')],
      ['https://10.0.0.1/x', PUSH_REFUSALS.notService('10.0.0.1')],
      ['https://[::1]/x', PUSH_REFUSALS.notService('::1')],
      ['not a url', PUSH_REFUSALS.notUrl],
    ] as const) {
      const err = await refusal(services, endpoint);
      expect(err.detail, endpoint).toBe(detail);
      expect(err.lasting).toBe(true);
    }
    // Refused by their form: no name was even looked up.
    expect(dns.asked.length).toBe(before);

    // A push service's name that resolves to a private address (a poisoned or rebound answer) is refused.
    const poisoned = new PushEndpointPolicy({
      hosts: DEFAULT_PUSH_SERVICE_HOSTS,
      resolve: table({ 'fcm.googleapis.com': ['10.9.8.7'] }).resolve,
    });
    const err = await refusal(poisoned, 'https://fcm.googleapis.com/fcm/send/abc');
    expect(err).toMatchObject({ detail: PUSH_REFUSALS.privateAddress, lasting: false });
    const unresolved = await refusal(services, 'https://push.services.mozilla.com/x');
    expect(unresolved).toMatchObject({
      detail: PUSH_REFUSALS.unresolved('push.services.mozilla.com'),
      lasting: false,
    });
  });

  it('takes a loopback test double only by its exact origin, and no other loopback address', async () => {
    expect(() => new PushEndpointPolicy({ hosts: ['*'], testOrigins: ['http://10.0.0.1:8080'] })).toThrow(
      /must be loopback/,
    );
    expect(() => new PushEndpointPolicy({ hosts: ['*'], testOrigins: ['http://localhost:8080'] })).toThrow(
      /must be loopback/,
    );
    const policy = new PushEndpointPolicy({
      hosts: DEFAULT_PUSH_SERVICE_HOSTS,
      resolve: dns.resolve,
      testOrigins: ['http://127.0.0.1:5555'],
    });
    expect((await policy.target('http://127.0.0.1:5555/push/abc')).address.address).toBe('127.0.0.1');
    for (const endpoint of [
      'http://127.0.0.1:5556/push/abc',
      'https://127.0.0.1:5555/push/abc',
      'http://localhost:5555/push/abc',
      'http://[::1]:5555/push/abc',
    ]) {
      await expect(policy.target(endpoint), endpoint).rejects.toBeInstanceOf(PushEndpointRefused);
    }
  });
});
