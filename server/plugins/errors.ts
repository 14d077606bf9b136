import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { ZodError } from 'zod';
import { SIGN_IN_REQUIRED, STEP_UP_DETAILS, STEP_UP_REQUIRED } from '../../src/contracts/auth';
import type { ValidationIssue } from '../../src/contracts/errors';
import { isDatabaseUnavailable } from '../db/unavailable';

/**
 * The server's one error vocabulary. A service throws `appError('CODE')` (optionally with a more precise
 * detail); the error plugin maps it to `{"detail": "…"}` with the registered status (and, for the few
 * errors a client acts on by themselves, a machine-readable `code` beside it). Anything else that escapes
 * a route is a bug: logged with its stack, answered as a plain 500.
 */
export const ERRORS = {
  NOT_FOUND: { status: 404, detail: 'Not Found' },
  BAD_REQUEST: { status: 400, detail: 'Bad request.' },
  UNAUTHORIZED: { status: 401, detail: 'Not authenticated' },
  FORBIDDEN: { status: 403, detail: 'Not allowed.' },
  /** A sensitive action without a recent confirmation (`POST /auth/step-up`): nothing was done. */
  STEP_UP_REQUIRED: { status: 403, detail: STEP_UP_DETAILS.required, code: STEP_UP_REQUIRED },
  /** The account has nothing to confirm with (no password, no 2FA): only a new sign-in will do. */
  SIGN_IN_REQUIRED: { status: 403, detail: STEP_UP_DETAILS.signInAgain, code: SIGN_IN_REQUIRED },
  CONFLICT: { status: 409, detail: 'Conflict.' },
  PAYLOAD_TOO_LARGE: { status: 413, detail: 'Request body is too large.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, detail: 'Unsupported content type.' },
  RATE_LIMITED: { status: 429, detail: 'Too many requests. Please try again later.' },
  /** An exchange answered in a shape the server cannot read: the detail names the exchange and the fields. */
  BAD_GATEWAY: { status: 502, detail: 'The exchange sent an answer we could not read. Nothing was changed.' },
  SERVICE_UNAVAILABLE: { status: 503, detail: 'Service temporarily unavailable.' },
  /**
   * An order the exchange did not answer clearly and that was not found yet by its client id: not a
   * failure. A retry with the same Idempotency-Key looks it up before anything is sent.
   */
  OUTCOME_UNKNOWN: {
    status: 503,
    detail: 'The exchange did not say whether the order was placed.',
    code: 'outcome_unknown',
  },
  INTERNAL: { status: 500, detail: 'Internal Server Error' },
} as const satisfies Record<string, { status: number; detail: string; code?: string }>;

export type ErrorCode = keyof typeof ERRORS;

/** What a request answers (503) when the database cannot be reached. */
export const DATABASE_UNAVAILABLE = 'The database is not answering right now. Try again in a moment.';

export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly code: ErrorCode,
    readonly status: number,
    readonly detail: string,
    /** Extra response headers, e.g. Retry-After. */
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

export function appError(code: ErrorCode, detail?: string, headers?: Record<string, string>): AppError {
  const entry = ERRORS[code];
  return new AppError(code, entry.status, detail ?? entry.detail, headers);
}

/** Maps zod issues to FastAPI's 422 list. `where` is the first element of `loc`: body, query, path… */
export function zodToIssues(error: ZodError, where: string): ValidationIssue[] {
  return error.issues.map((issue) => ({
    loc: [where, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
    msg: issue.message,
    type: issue.code,
  }));
}

/** Thrown by `parse()` helpers in routes so that the error handler knows which part of the request failed. */
export class RequestValidationError extends Error {
  override name = 'RequestValidationError';
  constructor(readonly issues: ValidationIssue[]) {
    super('Request validation failed');
  }
}

/** Parses one part of a request with a contract schema; failures become a 422 with FastAPI's shape. */
export function parseRequest<T>(
  schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: ZodError } },
  value: unknown,
  where: 'body' | 'query' | 'path' | 'header' = 'body',
): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new RequestValidationError(zodToIssues(result.error, where));
  return result.data;
}

/** C0 controls but tab, line feed and carriage return, and DEL: never part of a name, a query or a form. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
export const CONTROL_DETAIL = 'Control characters are not allowed.';

/** Where the first string holding a control character sits in a parsed request part, or null. */
export function controlCharacterAt(
  value: unknown,
  loc: (string | number)[],
  depth = 0,
): (string | number)[] | null {
  if (typeof value === 'string') return CONTROL.test(value) ? loc : null;
  if (depth > 32 || value === null || typeof value !== 'object') return null;
  for (const [key, item] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
    if (typeof key === 'string' && CONTROL.test(key)) return [...loc, key];
    const found = controlCharacterAt(item, [...loc, key], depth + 1);
    if (found !== null) return found;
  }
  return null;
}

const PARAMS = /\nparams: [\s\S]*$/;

/**
 * An unknown error as it may be logged: a failed query's parameters (an e-mail, a token hash, whatever
 * the request sent) and its database cause's text (which quotes values) are left out; the SQL, the
 * error's name and the cause's code stay, which is what finding the bug needs.
 */
export function loggable(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  const safe = new Error(err.message.replace(PARAMS, '\nparams: (not logged)'));
  safe.name = err.name;
  safe.stack = (err.stack ?? '').replace(err.message, safe.message);
  const cause = err.cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    safe.cause = { name: cause.name, ...(typeof code === 'string' ? { code } : {}) };
  }
  return safe;
}

function isFastifyError(err: unknown): err is FastifyError {
  return err instanceof Error && typeof (err as Partial<FastifyError>).code === 'string';
}

/**
 * An error answer, written as it is: every route's schema documents the error bodies, but they are not
 * filtered through it (a route that validates no input has no 422 answer to serialise one with).
 */
function send(reply: FastifyReply, body: { detail: string | ValidationIssue[]; code?: string }): void {
  reply.type('application/json; charset=utf-8').send(JSON.stringify(body));
}

export default fp(
  async function errorsPlugin(app: FastifyInstance) {
    // Refused at the edge, before any route or database sees it: a NUL byte in a username, a path
    // parameter or a form field is a 422 naming where it was, never a database error.
    // A callback hook: every request passes here, and a promise per request is measurable.
    app.addHook('preValidation', (request, _reply, done) => {
      const parts = [
        ['path', request.params],
        ['query', request.query],
        ['body', request.body],
      ] as const;
      for (const [where, value] of parts) {
        const loc = controlCharacterAt(value, [where]);
        if (loc !== null) {
          return done(new RequestValidationError([{ loc, msg: CONTROL_DETAIL, type: 'value_error' }]));
        }
      }
      done();
    });
    app.setErrorHandler((err: unknown, request, reply) => {
      if (err instanceof AppError) {
        const entry = ERRORS[err.code];
        send(
          reply.headers(err.headers).code(err.status),
          'code' in entry ? { detail: err.detail, code: entry.code } : { detail: err.detail },
        );
        return;
      }
      if (err instanceof RequestValidationError) {
        send(reply.code(422), { detail: err.issues });
        return;
      }
      if (err instanceof ZodError) {
        send(reply.code(422), { detail: zodToIssues(err, 'body') });
        return;
      }
      if (isFastifyError(err) && err.statusCode !== undefined && err.statusCode < 500) {
        // Framework-level client errors: bad JSON, body too large, unsupported media type, rate limit.
        const status = err.statusCode;
        const detail =
          err.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
            ? ERRORS.PAYLOAD_TOO_LARGE.detail
            : err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
              ? ERRORS.UNSUPPORTED_MEDIA_TYPE.detail
              : err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
                ? 'Request body is not valid JSON.'
                : err.message;
        send(reply.code(status), { detail });
        return;
      }
      if (isDatabaseUnavailable(err)) {
        // Not a bug: the database is down or restarting. Say so and let the client retry.
        request.log.warn(
          { reason: err instanceof Error ? err.message : String(err) },
          'database unavailable',
        );
        send(reply.code(503).header('retry-after', '2'), { detail: DATABASE_UNAVAILABLE });
        return;
      }
      request.log.error({ err: loggable(err) }, 'unhandled error');
      send(reply.code(500), { detail: ERRORS.INTERNAL.detail });
    });
  },
  { name: 'errors' },
);
