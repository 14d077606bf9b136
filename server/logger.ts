import type { FastifyServerOptions } from 'fastify';
import type { Config } from './config';

/**
 * A request's URL as logs show it: the path, and for a query only the names of its parameters. Values
 * never reach a log line: a reset token, a socket ticket or a nested image URL may ride in any of them.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const names = [...new Set(new URLSearchParams(url.slice(q + 1)).keys())];
  return names.length === 0 ? url.slice(0, q) : `${url.slice(0, q)}?${names.map((n) => `${n}=…`).join('&')}`;
}

/** Field names that hold credentials, wherever they appear. */
const SECRET_KEYS = [
  'password',
  'new_password',
  'current_password',
  'newPassword',
  'secret',
  'secretKey',
  'apiKey',
  'api_key',
  'token',
  'access_token',
  'refresh_token',
  'code',
];

/** Objects that get logged whole (request bodies, queries, payloads). */
const CONTAINERS = ['body', 'req.body', 'query', 'req.query', 'payload', 'data', 'params'];

/**
 * Paths pino removes from every log object: credentials in headers, bodies and errors. They are spelled
 * out rather than written `*.password`: a path that starts with a wildcard makes pino run its redaction
 * over the bindings of every child logger, that is once per request.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-mbx-apikey"]',
  'req.headers["idempotency-key"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  ...SECRET_KEYS,
  ...CONTAINERS.flatMap((c) => SECRET_KEYS.map((k) => `${c}.${k}`)),
];

/** Fastify's logger options: JSON lines, or pretty lines in development. */
export function loggerOptions(
  config: Pick<Config, 'LOG_LEVEL' | 'NODE_ENV'>,
  stream?: { write(line: string): void },
): FastifyServerOptions['logger'] {
  return {
    level: config.LOG_LEVEL,
    ...(stream === undefined ? {} : { stream }),
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
