import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { PushEndpointPolicy, PushTarget } from './endpoint-policy';

/** One HTTP request to a push service: status only (the body of an answer says nothing we act on). */
export type PushSend = (request: {
  endpoint: string;
  method: string;
  headers: Record<string, string>;
  body: Buffer | null;
}) => Promise<{ status: number; retryAfter: string | null }>;

export interface PinnedSendOptions {
  /** How long one request may take (10 s). */
  timeoutMs?: number;
  /** Told of each connection made, with the address (tests count them). */
  onConnect?: (address: string) => void;
}

/** The most of a push service's answer that is read before the connection is dropped. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * Sends pushes the way the endpoint policy allows: the endpoint is checked and its host resolved before
 * each request (throwing PushEndpointRefused without connecting), and the request goes to the checked
 * address through a pinned lookup, so a second DNS answer cannot move it. A redirect is answered as it
 * came and never followed: a push service has no reason to send one.
 */
export function pinnedSend(policy: PushEndpointPolicy, o: PinnedSendOptions = {}): PushSend {
  return async ({ endpoint, method, headers, body }) => {
    const target = await policy.target(endpoint);
    o.onConnect?.(target.address.address);
    const res = await request(target, method, headers, body, o.timeoutMs ?? 10_000);
    await drain(res);
    const retryAfter = res.headers['retry-after'];
    return { status: res.statusCode ?? 0, retryAfter: typeof retryAfter === 'string' ? retryAfter : null };
  };
}

function request(
  { url, address }: PushTarget,
  method: string,
  headers: Record<string, string>,
  body: Buffer | null,
  timeoutMs: number,
): Promise<IncomingMessage> {
  const pinned: LookupFunction = (_host, options, callback) => {
    if (options.all) callback(null, [{ address: address.address, family: address.family }]);
    else callback(null, address.address, address.family);
  };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request({
      protocol: url.protocol,
      hostname: host,
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method,
      headers,
      lookup: pinned,
      agent: false,
      signal: AbortSignal.timeout(timeoutMs),
      ...(url.protocol === 'https:' && isIP(host) === 0 ? { servername: host } : {}),
    });
    req.once('response', resolve);
    req.once('error', reject);
    req.end(body ?? undefined);
  });
}

/** Reads (and forgets) an answer's body, at most MAX_ANSWER_BYTES of it. */
async function drain(res: IncomingMessage): Promise<void> {
  let size = 0;
  try {
    for await (const chunk of res) {
      size += (chunk as Buffer).length;
      if (size > MAX_ANSWER_BYTES) {
        res.destroy();
        return;
      }
    }
  } catch {
    // The status is what counts; a body cut short changes nothing.
  }
}
