import { existsSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';

/**
 * TradingView's chart (`chart tv`) is their embed page in a sandboxed frame of s.tradingview.com, which
 * the page first asks for (an opaque request) to know it can be reached. No script of theirs runs in our
 * page, which holds the access token: scripts come from this origin only.
 */
export const TRADINGVIEW_ORIGIN = 'https://s.tradingview.com';

/** The browser routes that must load the app on a direct visit or a reload. */
export const SPA_ROUTES = ['/', '/reset-password', '/payment/success', '/payment/cancel', '/payment/pending'];

/**
 * Serves the built browser app from `distDir` with history fallback: any GET outside /api that asks for
 * HTML gets index.html. Unknown /api paths keep their JSON 404. Registered as its own encapsulated
 * context so that helmet's document headers (CSP and friends) apply to the pages, not to every API call.
 */
export default async function spaPlugin(app: FastifyInstance, opts: { distDir: string; https: boolean }) {
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        frameSrc: ["'self'", TRADINGVIEW_ORIGIN],
        // React and the chart set inline style attributes.
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'", TRADINGVIEW_ORIGIN],
        workerSrc: ["'self'", 'blob:'],
        mediaSrc: ["'self'", 'blob:'],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    strictTransportSecurity: opts.https,
    crossOriginEmbedderPolicy: false,
  });
  const index = path.join(opts.distDir, 'index.html');
  const built = existsSync(index);
  if (built) {
    await app.register(fastifyStatic, {
      root: opts.distDir,
      prefix: '/',
      wildcard: true,
      index: false,
      setHeaders(res, filePath) {
        // Hashed assets never change; index.html must always be revalidated.
        if (filePath.includes(`${path.sep}assets${path.sep}`)) {
          res.header('cache-control', 'public, max-age=31536000, immutable');
        }
        // The service worker keeps its name across builds: the browser must see a new one at once.
        if (path.basename(filePath) === 'sw.js') {
          res.header('cache-control', 'no-cache');
          res.header('service-worker-allowed', '/');
        }
      },
    });
  }

  const sendApp = (reply: FastifyReply) =>
    built
      ? reply.header('cache-control', 'no-cache').sendFile('index.html')
      : reply
          .code(503)
          .type('text/plain; charset=utf-8')
          .send('The browser app is not built yet: run `npm run build` (npm start does it for you).');

  for (const route of SPA_ROUTES) app.get(route, (_req, reply) => sendApp(reply));

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const isApi = request.url === '/api' || request.url.startsWith('/api/');
    const wantsHtml = (request.headers.accept ?? '').includes('text/html');
    if (!isApi && (request.method === 'GET' || request.method === 'HEAD') && wantsHtml) {
      return sendApp(reply);
    }
    return reply.code(404).send({ detail: 'Not Found' });
  });
}
