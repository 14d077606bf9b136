import { isIP } from 'node:net';
import { isPublicAddress } from '../../news/proxy/address-filter';
import { systemResolver, type ResolvedAddress, type Resolver } from '../../news/proxy/fetch-image';

/**
 * Which push endpoints the server sends to. A push endpoint is a URL the browser hands over, so it is
 * whatever the caller wants it to be: the server must never become a way to reach its own network. An
 * endpoint is taken only when it is https on port 443, without credentials, on one of the push services'
 * hosts, and when every address its host resolves to is public (the image proxy's filter: no loopback,
 * private, link-local or metadata, unique-local, or IPv4 inside IPv6). The check runs when a browser
 * subscribes and again before every push, and the push connects to the very address that was checked.
 */

export const PUSH_REFUSALS = {
  notUrl: 'The push endpoint is not a valid absolute URL.',
  notHttps: 'The push endpoint must be an https URL.',
  credentials: 'The push endpoint must not carry a user name or password.',
  port: 'The push endpoint must be on the https port (443).',
  notService: (host: string) => `${host} is not a push service this server sends to.`,
  unresolved: (host: string) => `The push service ${host} could not be resolved.`,
  privateAddress: 'The push endpoint points to a private or reserved address.',
} as const;

/**
 * An endpoint the server will not send to, and why: its form (`url`), a host that did not resolve, or an
 * address that is not public. `lasting`: the URL itself is refused and never will be taken (its form, or
 * a private address written in it); otherwise it was what its host's name resolved to this time.
 */
export class PushEndpointRefused extends Error {
  override name = 'PushEndpointRefused';
  constructor(
    readonly detail: string,
    readonly why: 'url' | 'unresolved' | 'private',
    readonly lasting: boolean,
  ) {
    super(detail);
  }
}

const badUrl = (detail: string) => new PushEndpointRefused(detail, 'url', true);

export interface PushEndpointPolicyOptions {
  /** Push services' hosts: names, `*.name` for any host under `name`, or `['*']` for any public host. */
  hosts: readonly string[];
  resolve?: Resolver;
  /**
   * Tests only: origins of push doubles on loopback (`http://127.0.0.1:<port>`), taken over plain http on
   * their own loopback address. Anything else there is refused when the policy is made.
   */
  testOrigins?: readonly string[];
}

/** The endpoint's URL and the one address a push to it connects to. */
export interface PushTarget {
  url: URL;
  address: ResolvedAddress;
}

const LOOPBACK_ORIGIN = /^http:\/\/(127\.0\.0\.1|\[::1\]):\d{1,5}$/;

export class PushEndpointPolicy {
  private readonly any: boolean;
  private readonly names: Set<string>;
  private readonly suffixes: string[];
  private readonly testOrigins: Set<string>;
  private readonly resolve: Resolver;

  constructor(o: PushEndpointPolicyOptions) {
    this.any = o.hosts.length === 1 && o.hosts[0] === '*';
    this.names = new Set(o.hosts.filter((h) => !h.startsWith('*')).map((h) => h.toLowerCase()));
    this.suffixes = o.hosts.filter((h) => h.startsWith('*.')).map((h) => h.slice(1).toLowerCase());
    this.resolve = o.resolve ?? systemResolver;
    for (const origin of o.testOrigins ?? []) {
      if (!LOOPBACK_ORIGIN.test(origin)) throw new Error(`a test push origin must be loopback: ${origin}`);
    }
    this.testOrigins = new Set(o.testOrigins ?? []);
  }

  /** The URL when its form is one the server sends to (no resolving); throws PushEndpointRefused. */
  form(endpoint: string): URL {
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      throw badUrl(PUSH_REFUSALS.notUrl);
    }
    if (url.username !== '' || url.password !== '') throw badUrl(PUSH_REFUSALS.credentials);
    if (this.testOrigins.has(url.origin)) return url;
    if (url.protocol !== 'https:') throw badUrl(PUSH_REFUSALS.notHttps);
    if (url.port !== '' && url.port !== '443') throw badUrl(PUSH_REFUSALS.port);
    const host = bareHost(url);
    if (!this.any && !this.isService(host)) throw badUrl(PUSH_REFUSALS.notService(host));
    return url;
  }

  /**
   * The endpoint's URL and the address to connect to, once every address its host resolves to passed the
   * filter; throws PushEndpointRefused. Nothing is connected to here.
   */
  async target(endpoint: string): Promise<PushTarget> {
    const url = this.form(endpoint);
    const host = bareHost(url);
    const literal = isIP(host);
    const addresses: ResolvedAddress[] = literal
      ? [{ address: host, family: literal === 6 ? 6 : 4 }]
      : await this.resolve(host).catch(() => []);
    if (addresses.length === 0)
      throw new PushEndpointRefused(PUSH_REFUSALS.unresolved(host), 'unresolved', false);
    // A test double's origin is taken on its own loopback literal only; everything else must be public.
    const allowed = this.testOrigins.has(url.origin)
      ? (ip: string) => literal !== 0 && ip === host
      : isPublicAddress;
    if (addresses.some((a) => !allowed(a.address))) {
      throw new PushEndpointRefused(PUSH_REFUSALS.privateAddress, 'private', literal !== 0);
    }
    return { url, address: addresses[0] as ResolvedAddress };
  }

  private isService(host: string): boolean {
    if (isIP(host) !== 0) return false;
    return this.names.has(host) || this.suffixes.some((s) => host.endsWith(s) && host.length > s.length);
  }
}

/** The host as compared and resolved: without IPv6 brackets or a final dot, in lower case. */
function bareHost(url: URL): string {
  return url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
}
