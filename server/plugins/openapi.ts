import { STATUS_CODES } from 'node:http';
import swagger from '@fastify/swagger';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { createJsonSchemaTransform, createJsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { z } from 'zod';
import * as activity from '../../src/contracts/activity';
import * as analysis from '../../src/contracts/analysis';
import * as auth from '../../src/contracts/auth';
import * as billing from '../../src/contracts/billing';
import * as errors from '../../src/contracts/errors';
import * as exchanges from '../../src/contracts/exchanges';
import * as health from '../../src/contracts/health';
import * as market from '../../src/contracts/market';
import * as rules from '../../src/contracts/rules';
import * as scorecard from '../../src/contracts/scorecard';
import * as signals from '../../src/contracts/signals';
import * as trading from '../../src/contracts/trading';
import * as watchlist from '../../src/contracts/watchlist';
import * as web3 from '../../src/contracts/web3';
import schemasPlugin from './schemas';

/** Where the document is served, under /api. */
export const OPENAPI_PATH = '/openapi.json';
export const BEARER = 'bearerAuth';

/**
 * Every schema the contracts export, under its export name: the document's components are these, so a
 * client generated from it speaks of `OrderRequest` as the browser does. A name two contracts share
 * keeps its first owner; the other stays inline where it is used.
 */
export const CONTRACT_SCHEMAS = z.registry<{ id?: string }>();
const named = new Set<string>();
for (const contract of [
  errors,
  auth,
  web3,
  market,
  signals,
  scorecard,
  trading,
  exchanges,
  rules,
  watchlist,
  activity,
  billing,
  analysis,
  health,
]) {
  for (const [name, value] of Object.entries(contract)) {
    if (!(value instanceof z.ZodType) || CONTRACT_SCHEMAS.has(value) || named.has(name)) continue;
    CONTRACT_SCHEMAS.add(value, { id: name });
    named.add(name);
  }
}

const isZod = (value: unknown): value is z.ZodType => value instanceof z.ZodType;

type Responses = Record<string, unknown>;

/** A JSON answer with its description, the form the document keeps descriptions in. */
export function jsonAnswer(schema: z.ZodType, description: string) {
  return { description, content: { 'application/json': { schema } } };
}

/** The answers every documented route may give besides its own: 422 for a bad input, 401, the rest. */
function commonResponses(schema: FastifySchema, authed: boolean): Responses {
  const validated = [schema.body, schema.querystring, schema.params, schema.headers].some(
    (part) => part !== undefined,
  );
  return {
    ...(validated
      ? {
          422: jsonAnswer(
            errors.ValidationErrorBody,
            'The request failed validation: one entry per problem.',
          ),
        }
      : {}),
    ...(authed
      ? { 401: jsonAnswer(errors.DetailBody, 'Not signed in, or the access token has expired.') }
      : {}),
    default: jsonAnswer(errors.DetailBody, 'Any other error.'),
  };
}

function handlers(value: RouteOptions['preValidation']): unknown[] {
  return value === undefined ? [] : [value].flat();
}

/**
 * Completes a route's documentation as it is registered: the bearer scheme where `requireUser` guards it,
 * the error answers (which the error plugin's bodies are then serialised with), a tag from its first
 * path segment.
 */
export function documentRoute(app: FastifyInstance, route: RouteOptions): void {
  const responses = (route.schema?.response ?? {}) as Responses;
  // A JSON Schema answer (healthz) keeps Fastify's compiled serialiser and is documented as it is.
  if (Object.values(responses).some((r) => !isZod(r) && !isContentResponse(r))) return;
  if (route.method === 'HEAD' || route.websocket === true || route.schema?.hide === true) return;
  // A copy: a schema object may be shared by several routes.
  const schema: FastifySchema = { ...route.schema };
  const authed =
    schema.security !== undefined
      ? schema.security.length > 0
      : handlers(route.preValidation).includes(app.requireUser);
  if (authed && schema.security === undefined) schema.security = [{ [BEARER]: [] }];
  const own = Object.fromEntries(
    Object.entries(responses).map(([code, r]) => [
      code,
      // An empty answer (a 204) stays bare: the document then gives it no content.
      isZod(r) && !(r instanceof z.ZodUndefined)
        ? jsonAnswer(r, r.description ?? STATUS_CODES[code] ?? code)
        : r,
    ]),
  );
  schema.response = { ...commonResponses(schema, authed), ...own };
  schema.tags ??= [tagOf(route.url)];
  route.schema = schema;
}

function isContentResponse(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'content' in value;
}

/** Tags group the document the way the modules do; a path's first segment names its module. */
const TAG_OF_SEGMENT: Record<string, string> = {
  symbols: 'market',
  price: 'market',
  klines: 'market',
  orders: 'trading',
  positions: 'trading',
  close_position: 'trading',
  close_all_positions: 'trading',
  account: 'trading',
  ws: 'auth',
  news: 'signals',
  proxy: 'signals',
  users: 'auth',
  subscriptions: 'billing',
};

function tagOf(url: string): string {
  const segment = url.replace(/^\/api\//, '').split('/')[0] ?? '';
  if (url.startsWith('/api/account/activity')) return 'auth';
  return TAG_OF_SEGMENT[segment] ?? segment;
}

const zodTransform = createJsonSchemaTransform({ skipList: [], schemaRegistry: CONTRACT_SCHEMAS });
const zodTransformObject = createJsonSchemaTransformObject({ schemaRegistry: CONTRACT_SCHEMAS });
// Parameters are listed one by one from the schema's properties, which @fastify/swagger cannot read
// through a `$ref` to a component: those parts are converted whole, with no component to point to.
const inlineTransform = createJsonSchemaTransform({ skipList: [], schemaRegistry: z.registry() });

type Document = Parameters<typeof zodTransform>[0];

/**
 * `zodTransform`, but a socket route is left out, parameters are inlined, and a JSON Schema answer (one
 * Fastify compiles a serialiser for) passes as it is.
 */
const transform: typeof zodTransform = (document: Document) => {
  // A socket upgrade is no request and answer OpenAPI can tell; its messages are in the contracts.
  if ((document.route as { websocket?: boolean }).websocket === true) {
    return { schema: { hide: true }, url: document.url };
  }
  const { querystring, params, headers, response, ...rest } = document.schema ?? {};
  const answers = Object.entries((response ?? {}) as Responses);
  const plain = answers.filter(([, r]) => !isZod(r) && !isContentResponse(r));
  const zodAnswers = answers.filter(([, r]) => isZod(r) || isContentResponse(r));
  const result = zodTransform({
    ...document,
    schema: { ...rest, ...(zodAnswers.length > 0 ? { response: Object.fromEntries(zodAnswers) } : {}) },
  });
  const parts = inlineTransform({ ...document, schema: { querystring, params, headers } }).schema;
  const kept = plain.map(([code, r]) => {
    const { $schema: _dialect, ...schema } = r as Record<string, unknown>;
    return [code, schema] as const;
  });
  const documented = { ...(result.schema.response as Responses | undefined), ...Object.fromEntries(kept) };
  return {
    ...result,
    schema: {
      ...result.schema,
      ...parts,
      ...(Object.keys(documented).length > 0 ? { response: documented } : {}),
    },
  };
};

/** @fastify/swagger names an answer with no description "Default Response"; its status says more. */
function describeBareAnswers<T>(document: T): T {
  const paths = (document as { paths?: Record<string, Record<string, { responses?: Responses }>> }).paths;
  for (const item of Object.values(paths ?? {})) {
    for (const operation of Object.values(item)) {
      for (const [code, answer] of Object.entries(operation.responses ?? {})) {
        const response = answer as { description?: string };
        if (response.description === 'Default Response') response.description = STATUS_CODES[code] ?? code;
      }
    }
  }
  return document;
}

/**
 * The OpenAPI 3.1 document of the HTTP API at `GET /api/openapi.json`, built from the routes' zod
 * schemas, which are the contracts the browser uses. Registered in the /api scope before the modules,
 * so that it sees each of their routes and nothing else.
 */
export default fp(
  async function openapiPlugin(app: FastifyInstance, opts: { version: string }) {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Signal Console API',
          description:
            'Errors are `{"detail": "…"}`; a request that fails validation is a 422 whose `detail` lists ' +
            '`{"loc", "msg", "type"}` per problem. Sign in with `POST /api/auth/token` and send the access ' +
            'token as `Authorization: Bearer …`.',
          version: opts.version,
        },
        components: {
          securitySchemes: { [BEARER]: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
        },
      },
      transform,
      transformObject: (document) => describeBareAnswers(zodTransformObject(document)),
    });
    app.addHook('onRoute', (route) => documentRoute(app, route));
    // Then each route's zod schemas are compiled to validate and serialise, its error answers included.
    await app.register(schemasPlugin);
    app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());
  },
  { name: 'openapi' },
);
