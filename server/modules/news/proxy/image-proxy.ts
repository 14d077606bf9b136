import type { Clock } from '../news.types';
import { addressFilter } from './address-filter';
import { fetchImage, gatewayError, systemResolver, type FetchedImage, type Resolver } from './fetch-image';
import type { ImageCache } from './image-cache';

export interface ImageProxyOptions {
  cache: ImageCache;
  clock: Clock;
  resolve?: Resolver;
  /** Test only: loopback addresses the filter treats as public. */
  testAllowlist?: readonly string[];
  ports?: readonly number[] | 'any';
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
}

export const PROXY_DEFAULTS = {
  timeoutMs: 5000,
  maxBytes: 5 * 1024 * 1024,
  maxRedirects: 3,
  ports: [80, 443, 8080, 8443] as readonly number[],
};

export interface ProxiedImage extends FetchedImage {
  cached: boolean;
}

/** The image proxy's rules: answer from the disk cache, else fetch under the SSRF rules and keep it. */
export class ImageProxy {
  private readonly inFlight = new Map<string, Promise<FetchedImage>>();
  private readonly isAllowed: (ip: string) => boolean;
  readonly stats = { connects: 0, fetched: 0, hits: 0 };

  constructor(private readonly o: ImageProxyOptions) {
    this.isAllowed = addressFilter(o.testAllowlist);
  }

  async get(url: string): Promise<ProxiedImage> {
    const hit = await this.o.cache.get(url);
    if (hit !== null) {
      this.stats.hits += 1;
      return { ...hit, cached: true };
    }
    let flight = this.inFlight.get(url);
    if (flight === undefined) {
      flight = this.fetch(url).finally(() => this.inFlight.delete(url));
      this.inFlight.set(url, flight);
    }
    return { ...(await flight), cached: false };
  }

  private async fetch(url: string): Promise<FetchedImage> {
    const controller = new AbortController();
    const timeoutMs = this.o.timeoutMs ?? PROXY_DEFAULTS.timeoutMs;
    const cancel = this.o.clock.setTimer(() => controller.abort(), timeoutMs);
    try {
      const work = fetchImage(url, {
        resolve: this.o.resolve ?? systemResolver,
        isAllowed: this.isAllowed,
        ports: this.o.ports ?? PROXY_DEFAULTS.ports,
        maxBytes: this.o.maxBytes ?? PROXY_DEFAULTS.maxBytes,
        maxRedirects: this.o.maxRedirects ?? PROXY_DEFAULTS.maxRedirects,
        signal: controller.signal,
        onConnect: () => (this.stats.connects += 1),
      });
      const timedOut = new Promise<never>((_, reject) =>
        controller.signal.addEventListener('abort', () =>
          reject(gatewayError(504, 'The image did not arrive in time.')),
        ),
      );
      const image = await Promise.race([work, timedOut]);
      this.stats.fetched += 1;
      await this.o.cache.put(url, image);
      return image;
    } finally {
      cancel();
    }
  }
}
