import { createDecipheriv, createECDH, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { importJWK, jwtVerify } from 'jose';

/** One push the double accepted: its subscription, headers and decrypted payload. */
export interface ReceivedPush {
  id: string;
  ttl: string | undefined;
  urgency: string | undefined;
  topic: string | undefined;
  /** The plaintext the sender encrypted (RFC 8291), as UTF-8. */
  payload: string;
}

export interface DoubleSubscription {
  id: string;
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

export interface PushDouble {
  url: string;
  /** A browser's subscription: a fresh P-256 key pair and auth secret the double keeps to decrypt with. */
  subscribe(): DoubleSubscription;
  received: ReceivedPush[];
  /** Requests the double refused (bad auth, bad encoding), with why. */
  refused: { id: string; why: string }[];
  /** Every request that arrived, answered or not (retries included). */
  attempts: { id: string; status: number }[];
  /** The statuses the next requests to a subscription get, in order (then 201). */
  answer(id: string, ...statuses: number[]): void;
  close(): Promise<void>;
}

const b64u = (buf: Buffer) => buf.toString('base64url');

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Checks `Authorization: vapid t=<jwt>, k=<key>` (RFC 8292): ES256 under k, aud the origin, exp ≤ 24 h. */
async function checkVapid(header: string | undefined, origin: string): Promise<string | null> {
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header ?? '');
  if (match === null) return 'no vapid Authorization header';
  const [, token, key] = match as unknown as [string, string, string];
  const raw = Buffer.from(key, 'base64url');
  if (raw.length !== 65 || raw[0] !== 4) return 'k is not an uncompressed P-256 point';
  const jwk = { kty: 'EC', crv: 'P-256', x: b64u(raw.subarray(1, 33)), y: b64u(raw.subarray(33, 65)) };
  try {
    const { payload } = await jwtVerify(token, await importJWK(jwk, 'ES256'), {
      algorithms: ['ES256'],
      audience: origin,
    });
    const now = Math.floor(Date.now() / 1000);
    if (typeof payload.exp !== 'number' || payload.exp > now + 24 * 3600) return 'exp more than 24 h away';
    if (typeof payload.sub !== 'string' || !/^(mailto:|https:)/.test(payload.sub)) return 'no sub';
    return null;
  } catch (err) {
    return `bad JWT: ${(err as Error).message}`;
  }
}

/** Decrypts an aes128gcm body (RFC 8188 record, RFC 8291 keys) with the subscription's private key. */
export function decryptAes128gcm(body: Buffer, uaPrivate: Buffer, authSecret: Buffer): string {
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idLen = body[20] ?? 0;
  const asPublic = body.subarray(21, 21 + idLen);
  const record = body.subarray(21 + idLen);
  if (record.length > rs) throw new Error('more than one record');
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(uaPrivate);
  const uaPublic = ecdh.getPublicKey();
  const shared = ecdh.computeSecret(asPublic);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic]);
  const ikm = Buffer.from(hkdfSync('sha256', shared, authSecret, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  // The last record ends with a 0x02 delimiter, then zero padding.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end -= 1;
  if (padded[end] !== 2) throw new Error('no last-record delimiter');
  return padded.subarray(0, end).toString('utf8');
}

/**
 * A push service on loopback (RFC 8030) for tests: endpoints `/push/<id>`; checks each request's VAPID
 * header and `Content-Encoding: aes128gcm`, decrypts the payload with the subscription's private key, and
 * answers 201 — or the statuses a test queued (404/410 gone, 429/500 busy).
 */
export async function startPushDouble(): Promise<PushDouble> {
  const secrets = new Map<string, { priv: Buffer; auth: Buffer }>();
  const queued = new Map<string, number[]>();
  const received: ReceivedPush[] = [];
  const refused: { id: string; why: string }[] = [];
  const attempts: { id: string; status: number }[] = [];
  let origin = '';

  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const id = /^\/push\/([0-9a-f-]+)$/.exec(req.url ?? '')?.[1] ?? '';
      const reply = (status: number) => {
        attempts.push({ id, status });
        // Busy answers ask for a retry at once, so that a test of the retries does not wait out a back-off.
        res.writeHead(status, status === 429 || status >= 500 ? { 'retry-after': '0' } : {}).end();
      };
      const keys = secrets.get(id);
      if (req.method !== 'POST' || keys === undefined) return reply(404);
      const next = queued.get(id)?.shift();
      if (next !== undefined) return reply(next);
      const why =
        (await checkVapid(req.headers.authorization, origin)) ??
        (req.headers['content-encoding'] === 'aes128gcm' ? null : 'Content-Encoding is not aes128gcm') ??
        (req.headers.ttl === undefined ? 'no TTL' : null);
      if (why !== null) {
        refused.push({ id, why });
        return reply(400);
      }
      try {
        const payload = decryptAes128gcm(body, keys.priv, keys.auth);
        received.push({
          id,
          ttl: req.headers.ttl as string | undefined,
          urgency: req.headers.urgency as string | undefined,
          topic: req.headers.topic as string | undefined,
          payload,
        });
        reply(201);
      } catch (err) {
        refused.push({ id, why: `not decrypted: ${(err as Error).message}` });
        reply(400);
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: origin,
    subscribe() {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const auth = randomBytes(16);
      const id = randomUUID();
      secrets.set(id, { priv: ecdh.getPrivateKey(), auth });
      return {
        id,
        endpoint: `${origin}/push/${id}`,
        keys: { p256dh: b64u(ecdh.getPublicKey()), auth: b64u(auth) },
      };
    },
    received,
    refused,
    attempts,
    answer(id, ...statuses) {
      queued.set(id, [...(queued.get(id) ?? []), ...statuses]);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
