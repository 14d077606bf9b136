import type { Duplex } from 'node:stream';
import Fastify, { LogController, type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import rateLimit from '@fastify/rate-limit';
import websocket from '@fastify/websocket';
import type { Config } from './config';
import type { Clock } from './modules/market/clock';
import { openDatabase, pgliteDir, type Database } from './db/client';
import { loggerOptions } from './logger';
import busPlugin, { type Bus } from './plugins/bus';
import dbPlugin from './plugins/db';
import leasesPlugin from './plugins/leases';
import limitsPlugin from './plugins/limits';
import errorsPlugin, { ERRORS } from './plugins/errors';
import openapiPlugin from './plugins/openapi';
import originGuard from './plugins/origin-guard';
import secretsPlugin from './plugins/secrets';
import authGuardPlugin from './plugins/auth-guard';
import spaPlugin from './plugins/spa';
import { MODULES } from './modules';
import type { PushOverrides } from './modules/notifications';
import type { TelegramOverrides } from './modules/notifications/telegram';
import { HealthService, initialComponents } from './modules/health/health.service';
import { fromRoot } from './paths';
import { configuredDriver, speedTuning } from './warm';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    health: HealthService;
  }
}

export interface BuildOptions {
  /** A database opened by the caller (tests); the app then leaves closing it to the caller. */
  database?: Database;
  /** A bus made by the caller (tests). */
  bus?: Bus;
  /** Folder of the built browser app; defaults to ./dist beside the project. */
  distDir?: string;
  /** Replaces the logger options (tests pass `false`). */
  logger?: boolean;
  /** Where log lines go instead of stdout (tests keep them in a file). */
  logStream?: { write(line: string): void };
  /** Called with the bare instance before any plugin, so that hooks it adds see every route (tests). */
  onInstance?: (app: FastifyInstance) => void;
  /** Called with the `/api` scope once every module is registered (tests reach module services there). */
  onApi?: (api: FastifyInstance) => void;
  /** The rules module's clock (tests drive an ask rule's window with it). */
  rulesClock?: Clock;
  /** Told of every route as it is registered (tests list them). */
  onRoute?: (route: { method: string | string[]; url: string }) => void;
  /** What the Telegram bot uses instead of the other modules' services and the system clock (tests). */
  telegram?: TelegramOverrides;
  /** Web Push's loopback doubles, resolver and connection count (tests; never set in production). */
  push?: PushOverrides;
  /** How long a request may take to arrive, headers and body (tests shorten it); {@link REQUEST_TIMEOUT_MS}. */
  requestTimeoutMs?: number;
}

/**
 * A request must have arrived whole (headers and body) this long after it started, or its connection is
 * answered 408 and closed: a client dribbling a body byte by byte holds nothing for long. Only the
 * request's arrival is timed: an SSE stream or a socket, whose request is complete at once, lives on.
 */
export const REQUEST_TIMEOUT_MS = 30_000;

/**
 * What a connection is answered when Node gives up on its request before it reaches a route (too slow,
 * headers too large, not HTTP): the same `{"detail": …}` as every other error, then the connection ends.
 */
function clientErrorHandler(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, text, detail] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'The request took too long to arrive.']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'The request headers are too large.']
        : [400, 'Bad Request', ERRORS.BAD_REQUEST.detail];
  const body = JSON.stringify({ detail });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${text}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

/**
 * Headers for every API answer (OWASP's REST set): JSON is never sniffed as HTML, never framed, and not
 * cached unless a route says otherwise. The pages get helmet's full set in the SPA plugin.
 */
const API_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
} as const;

const DEFAULT_DIST = fromRoot('dist/web');

/**
 * Builds the whole server: plugins, then each module under /api, then the browser app. Never listens:
 * `main.ts` does that, and tests use `app.inject()`.
 */
export async function buildApp(config: Config, opts: BuildOptions = {}): Promise<FastifyInstance> {
  const requestTimeout = opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const app = Fastify({
    requestTimeout,
    // Node looks for late requests every `connectionsCheckingInterval` (30 s by default): often enough
    // here that a request is cut within a quarter of its time-out past it.
    http: {
      requestTimeout,
      headersTimeout: requestTimeout,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(requestTimeout / 4))),
    },
    clientErrorHandler,
    logger: opts.logger === false ? false : loggerOptions(config, opts.logStream),
    // Rate limits and logs key on the client's address: only a proxy named in TRUST_PROXY may set it.
    trustProxy:
      typeof config.TRUST_PROXY === 'number'
        ? (_address: string, hop: number) => hop < (config.TRUST_PROXY as number)
        : config.TRUST_PROXY,
    bodyLimit: 1024 * 1024,
    logController: new LogController({
      disableRequestLogging: (request) => config.NODE_ENV === 'test' || request.url === '/api/healthz',
    }),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });
  app.decorate('config', config);
  opts.onInstance?.(app);
  if (opts.onRoute) app.addHook('onRoute', opts.onRoute);

  await app.register(errorsPlugin);
  await app.register(originGuard);
  await app.register(cookie);
  await app.register(formbody);
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  await app.register(limitsPlugin, { redisUrl: config.REDIS_URL, prefix: config.REDIS_PREFIX });
  const shared = app.sharedLimits;
  await app.register(rateLimit, {
    global: false,
    // With Redis every process counts in the same place. A store error is thrown, never skipped: the
    // limiter then counts in this process (plugins/rate-limit.ts), so no limit lapses while Redis is away.
    ...(shared === null ? {} : { redis: shared.redis, nameSpace: `${shared.prefix}rate:` }),
    skipOnError: false,
    errorResponseBuilder: (_req, ctx) => ({
      statusCode: 429,
      detail: `${ERRORS.RATE_LIMITED.detail.replace(' later.', '')} in ${Math.ceil(ctx.ttl / 1000)} s.`,
    }),
  });

  await app.register(secretsPlugin);
  await app.register(authGuardPlugin);

  // The speed tunings that apply (server/warm/): SPEED_TUNING and the database they would run in front of.
  const tuning = speedTuning(config.SPEED_TUNING, opts.database?.driver ?? configuredDriver(config));
  if (!tuning.on) app.log.info('speed tunings off (SPEED_TUNING=off)');
  const database =
    opts.database ??
    (await openDatabase(
      config.DATABASE_URL
        ? { kind: 'postgres', url: config.DATABASE_URL }
        : { kind: 'pglite', dataDir: pgliteDir(config.DATA_DIR) },
      { migrate: config.MIGRATE_ON_START, pgliteParsers: tuning.applies('pglite-parsers') },
    ));
  app.decorate('speedTuning', tuning);
  await app.register(dbPlugin, { database, owned: !opts.database });
  await app.register(busPlugin, {
    ...(opts.bus ? { bus: opts.bus } : {}),
    redisUrl: config.REDIS_URL,
    prefix: config.REDIS_PREFIX,
  });
  await app.register(leasesPlugin);

  const health = new HealthService({
    database,
    bus: app.bus,
    components: initialComponents(config),
    version: config.version,
    role: config.ROLE,
    leases: () => app.leases.held(),
  });
  if (config.ROLE === 'worker') {
    // A worker runs the jobs; only its health check is served, so a load balancer never sends users to it.
    app.addHook('onRequest', (request, reply, done) => {
      if (request.url === '/api/healthz' || request.url.startsWith('/api/healthz?')) done();
      else void reply.code(404).headers(API_HEADERS).send({ detail: 'Not Found' });
    });
  }
  app.decorate('health', health);

  await app.register(
    async (api) => {
      api.addHook('onRequest', (_request, reply, done) => {
        reply.headers(API_HEADERS);
        done();
      });
      api.setNotFoundHandler((_request, reply) => reply.code(404).send({ detail: 'Not Found' }));
      await api.register(openapiPlugin, { version: config.version });
      if (opts.telegram !== undefined) api.decorate('telegramOverrides', opts.telegram);
      if (opts.push !== undefined) api.decorate('pushOverrides', opts.push);
      for (const { name, plugin } of MODULES) {
        const clock = name === 'rules' ? opts.rulesClock : undefined;
        if (clock === undefined) await api.register(plugin);
        else await api.register(plugin as FastifyPluginAsync<{ clock?: Clock }>, { clock });
      }
      opts.onApi?.(api);
    },
    { prefix: '/api' },
  );

  await app.register(spaPlugin, {
    distDir: opts.distDir ?? DEFAULT_DIST,
    https: config.PUBLIC_URL.startsWith('https://'),
  });
  return app;
}
