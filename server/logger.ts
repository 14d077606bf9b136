import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import type { Config } from './config';

/** Query parameters whose values never reach a log line. */
const SECRET_PARAMS = /^(token|access_token|refresh_token|code|password|key|secret|signature|api_key)$/i;

/** Replaces secret query values in a URL with `[redacted]`. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  let changed = false;
  for (const name of [...params.keys()]) {
    if (SECRET_PARAMS.test(name)) {
      params.set(name, '[redacted]');
      changed = true;
    }
  }
  return changed ? `${url.slice(0, q)}?${params.toString()}` : url;
}

/** Paths pino removes from every log object: credentials in headers, bodies and errors. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-mbx-apikey"]',
  'req.headers["idempotency-key"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  '*.password',
  '*.new_password',
  '*.current_password',
  '*.newPassword',
  '*.secret',
  '*.secretKey',
  '*.apiKey',
  '*.api_key',
  '*.token',
  '*.access_token',
  '*.refresh_token',
  '*.code',
  'password',
  'token',
  'secret',
];

/** Fastify's logger options: JSON lines, or pretty lines in development. */
export function loggerOptions(
  config: Pick<Config, 'LOG_LEVEL' | 'NODE_ENV'>,
): FastifyServerOptions['logger'] {
  return {
    level: config.LOG_LEVEL,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: {
      req(req: { method: string; url: string; ip?: string }) {
        return { method: req.method, url: redactUrl(req.url), remoteAddress: req.ip };
      },
    },
    ...(config.NODE_ENV === 'development'
      ? {
          transport: {
            target: 'pino-pretty',
            options: { translateTime: 'HH:MM:ss', ignore: 'pid,hostname' },
          },
        }
      : {}),
  };
}

/**
 * Fastify makes a child logger for every request; with redaction on, pino compiles the bindings of each
 * one. Most requests never log (health checks, quiet routes), so the child is made on its first use.
 */
export function lazyChildLogger(
  logger: FastifyBaseLogger,
  bindings: Parameters<FastifyBaseLogger['child']>[0],
  opts?: Parameters<FastifyBaseLogger['child']>[1],
): FastifyBaseLogger {
  let child: FastifyBaseLogger | null = null;
  const real = (): FastifyBaseLogger => (child ??= logger.child(bindings, opts));
  return new Proxy(logger, {
    get(_target, prop) {
      const target = real();
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
    set(_target, prop, value) {
      return Reflect.set(real(), prop, value);
    },
  });
}
