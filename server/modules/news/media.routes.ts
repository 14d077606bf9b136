import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { appError } from '../../plugins/errors';
import { limiter } from '../../plugins/rate-limit';
import type { ImageProxy } from './proxy/image-proxy';
import { fromRoot } from '../../paths';

export const ASSETS_DIR = fromRoot('server/modules/news/assets');

const AssetParams = z.object({
  dir: z.enum(['icons', 'media']),
  file: z.string().regex(/^[a-z0-9][a-z0-9-]{0,60}\.(svg|png)$/, { error: 'a bundled file name' }),
});

const ProxyQuery = z.object({ url: z.string().trim().min(1).max(2048) });

const Image = {
  description: 'An image',
  content: { 'image/png': { schema: z.string() }, 'image/svg+xml': { schema: z.string() } },
};

/** Replies with an image: long-lived caching, never sniffed, and no script even inside an SVG. */
const IMAGE_HEADERS = {
  'cache-control': 'public, max-age=86400',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
  'cross-origin-resource-policy': 'same-origin',
} as const;

/** The bundled icons and media of the replay source, and the image proxy for remote ones. */
export function registerMediaRoutes(instance: FastifyInstance, proxy: ImageProxy): void {
  const app = instance.withTypeProvider<ZodTypeProvider>();
  const files = new Map<string, Buffer>();

  const assetSchema = {
    summary: 'A bundled icon or picture of the replay source',
    params: AssetParams,
    response: { 200: Image },
  };
  // Images are bytes, which the typed instance would not let a handler send: the parameters are typed here.
  instance.get<{ Params: z.output<typeof AssetParams> }>(
    '/news/assets/:dir/:file',
    { schema: assetSchema },
    async (request, reply) => {
      const { dir, file } = request.params;
      const key = `${dir}/${file}`;
      let body = files.get(key);
      if (body === undefined) {
        const read = await readFile(path.join(ASSETS_DIR, dir, file)).catch(() => null);
        if (read === null) throw appError('NOT_FOUND');
        body = read;
        files.set(key, body);
      }
      return reply
        .headers(IMAGE_HEADERS)
        .type(file.endsWith('.svg') ? 'image/svg+xml' : 'image/png')
        .send(body);
    },
  );

  const limited = limiter(app, 'image-proxy', { perIp: 600, windowMs: 60_000 });
  instance.get<{ Querystring: z.output<typeof ProxyQuery> }>(
    '/proxy/image',
    {
      preValidation: limited,
      schema: {
        summary: 'A remote image of a signal, fetched and cached by the server',
        querystring: ProxyQuery,
        response: { 200: { description: 'An image', content: { 'image/*': { schema: z.string() } } } },
      },
    },
    async (request, reply) => {
      const { url } = request.query;
      const image = await proxy.get(url);
      return reply
        .headers(IMAGE_HEADERS)
        .header('x-proxy-cache', image.cached ? 'hit' : 'miss')
        .type(image.contentType)
        .send(image.body);
    },
  );
}
