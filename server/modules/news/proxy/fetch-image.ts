import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { lookup as dnsLookup } from 'node:dns/promises';
import { AppError, appError } from '../../../plugins/errors';

/**
 * Fetches one image for the proxy without ever reaching a non-public address: each hop's host is resolved
 * once, every address checked, and the connection made to the checked address through a pinned lookup
 * (so a second DNS answer cannot rebind it). Redirects are followed by hand and each target re-checked.
 */

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

/** An upstream failure: 502 (bad answer) or 504 (too slow), in the error vocabulary's shape. */
export function gatewayError(status: 502 | 504, detail: string): AppError {
  return new AppError('SERVICE_UNAVAILABLE', status, detail);
}

export const IMAGE_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
  'image/svg+xml',
  'image/x-icon',
  'image/vnd.microsoft.icon',
  'image/bmp',
]);

export interface FetchOptions {
  resolve: Resolver;
  isAllowed: (ip: string) => boolean;
  /** Allowed destination ports; 'any' only in tests (servers on random loopback ports). */
  ports: readonly number[] | 'any';
  maxBytes: number;
  maxRedirects: number;
  /** Aborts the whole fetch (all hops); the caller arms it with its clock. */
  signal: AbortSignal;
  /** Counts each outgoing connection, so tests can prove a refusal never reached the network. */
  onConnect?: (address: string) => void;
}

export interface FetchedImage {
  contentType: string;
  body: Buffer;
}

const DEFAULT_PORT = { 'http:': 80, 'https:': 443 } as const;

/** Parses and checks a URL's form: http(s), no credentials, an allowed port. */
export function checkUrl(raw: string, ports: FetchOptions['ports']): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw appError('BAD_REQUEST', 'The url is not a valid absolute URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw appError('BAD_REQUEST', 'Only http and https URLs can be proxied.');
  if (url.username !== '' || url.password !== '')
    throw appError('BAD_REQUEST', 'URLs with credentials cannot be proxied.');
  const port = url.port === '' ? DEFAULT_PORT[url.protocol] : Number(url.port);
  if (ports !== 'any' && !ports.includes(port))
    throw appError('FORBIDDEN', `Port ${port} is not allowed for proxied images.`);
  return url;
}

/** The one address to connect to, after every resolved address passed the filter. */
async function pickAddress(url: URL, opts: FetchOptions): Promise<ResolvedAddress> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(host);
  const addresses: ResolvedAddress[] = literal
    ? [{ address: host, family: literal === 6 ? 6 : 4 }]
    : await opts.resolve(host).catch(() => {
        throw appError('BAD_REQUEST', `The host ${host} could not be resolved.`);
      });
  if (addresses.length === 0) throw appError('BAD_REQUEST', `The host ${host} could not be resolved.`);
  if (addresses.some((a) => !opts.isAllowed(a.address)))
    throw appError('FORBIDDEN', 'The url points to a private or reserved address.');
  return addresses[0] as ResolvedAddress;
}

function request(url: URL, target: ResolvedAddress, opts: FetchOptions): Promise<IncomingMessage> {
  const pinned: LookupFunction = (_host, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const lib = url.protocol === 'https:' ? https : http;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    opts.onConnect?.(target.address);
    const req = lib.request({
      protocol: url.protocol,
      hostname: host,
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      lookup: pinned,
      agent: false,
      signal: opts.signal,
      headers: { accept: 'image/*', 'user-agent': 'SignalConsole-ImageProxy/1.0' },
      ...(url.protocol === 'https:' && isIP(host) === 0 ? { servername: host } : {}),
    });
    req.once('response', resolve);
    req.once('error', reject);
    req.end();
  });
}

async function readCapped(res: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > maxBytes) {
      res.destroy();
      throw appError('PAYLOAD_TOO_LARGE', `The image is larger than ${maxBytes / 1024 / 1024} MB.`);
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

export async function fetchImage(raw: string, opts: FetchOptions): Promise<FetchedImage> {
  let url = checkUrl(raw, opts.ports);
  for (let hop = 0; ; hop++) {
    const target = await pickAddress(url, opts);
    const res = await request(url, target, opts).catch((err: unknown) => {
      if (opts.signal.aborted) throw gatewayError(504, 'The image did not arrive in time.');
      throw gatewayError(502, `The image could not be fetched (${(err as Error).message}).`);
    });
    const status = res.statusCode ?? 0;
    if (status >= 300 && status < 400 && res.headers.location !== undefined) {
      res.resume();
      if (hop >= opts.maxRedirects) throw gatewayError(502, 'Too many redirects.');
      url = checkUrl(new URL(res.headers.location, url).toString(), opts.ports);
      continue;
    }
    if (status !== 200) {
      res.resume();
      throw gatewayError(502, `The image server answered ${status}.`);
    }
    const contentType = (res.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (!IMAGE_TYPES.has(contentType)) {
      res.destroy();
      throw appError('UNSUPPORTED_MEDIA_TYPE', 'The url does not point to an image.');
    }
    const declared = Number(res.headers['content-length'] ?? NaN);
    if (declared > opts.maxBytes) {
      res.destroy();
      throw appError('PAYLOAD_TOO_LARGE', `The image is larger than ${opts.maxBytes / 1024 / 1024} MB.`);
    }
    try {
      return { contentType, body: await readCapped(res, opts.maxBytes) };
    } catch (err) {
      if (opts.signal.aborted) throw gatewayError(504, 'The image did not arrive in time.');
      throw err;
    }
  }
}
