import type { FastifyInstance, FastifySchemaCompiler, RouteOptions } from 'fastify';
import type { FastifyRouteSchemaDef } from 'fastify/types/schema';
import fp from 'fastify-plugin';
import { serializerCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { RequestValidationError, zodToIssues } from './errors';

/** What `loc[0]` of a 422 calls each part of a request Fastify validates (FastAPI's names). */
const WHERE: Record<string, 'body' | 'query' | 'path' | 'header'> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

const isZod = (value: unknown): value is z.ZodType => value instanceof z.ZodType;

/**
 * Unions validated in the form a value takes rather than as a whole, so that a bad field is named with
 * its own message instead of the union's "Invalid input" for the whole part. The route's schema stays
 * the union: that is what the document shows.
 */
const FORMS = new WeakMap<z.ZodType, (value: unknown) => z.ZodType>();

/** Validates `schema` in the form `formOf` picks for each value (see FORMS). */
export function validatedInForm<T extends z.ZodType>(schema: T, formOf: (value: unknown) => z.ZodType): T {
  FORMS.set(schema, formOf);
  return schema;
}

/**
 * Fastify's validator for a zod schema, the way `fastify-type-provider-zod`'s `validatorCompiler` does
 * it, with three differences the API's 422 needs: a failure is the issue list FastAPI sends, each `loc`
 * keeping its numbers (the library joins them into a string path); an absent body, which Fastify hands
 * over as `null`, is parsed as absent; and headers are checked but not replaced (the parsed object would
 * hold only the headers the schema names, and the guards read the others after validation).
 */
export const zodValidatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  if (!isZod(schema)) throw new Error(`Not a zod schema: the ${httpPart ?? 'body'} of a route`);
  const where = WHERE[httpPart ?? 'body'] ?? 'body';
  const formOf = FORMS.get(schema);
  return (data: unknown) => {
    const value = where === 'body' && data === null ? undefined : data;
    const result = (formOf?.(value) ?? schema).safeParse(value);
    if (!result.success) return { error: new RequestValidationError(zodToIssues(result.error, where)) };
    return where === 'header' ? {} : { value: result.data };
  };
};

/** The library's serialiser: an answer is encoded through its response schema, then written as JSON. */
function zodSerializerCompiler(route: FastifyRouteSchemaDef<unknown>): (data: unknown) => string {
  const { schema } = route;
  // `default` is the document's "any other error": the error plugin writes those bodies itself, and a
  // status a route does not name has no schema to filter it through.
  if (route.httpStatus === 'default') return (data) => JSON.stringify(data);
  if (!isZod(schema)) throw new Error(`Not a zod schema: an answer of ${route.method} ${route.url}`);
  return serializerCompiler({ ...route, schema });
}

function isContentResponse(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'content' in value;
}

/**
 * Gives each route whose schema is zod the compilers that make it real: its request parts are validated
 * (and parsed: handlers get the contract's output types), and its answers are serialised through their
 * response schema, so that an answer never carries a field its schema does not name. A route whose
 * answer is a JSON Schema (healthz) keeps Fastify's own serialiser.
 */
export function compileWithZod(route: RouteOptions): void {
  const schema = route.schema;
  if (schema === undefined) return;
  if ([schema.body, schema.querystring, schema.params, schema.headers].some(isZod)) {
    route.validatorCompiler ??= zodValidatorCompiler;
  }
  const responses = Object.values((schema.response ?? {}) as Record<string, unknown>);
  if (responses.length > 0 && responses.every((r) => isZod(r) || isContentResponse(r))) {
    route.serializerCompiler ??= zodSerializerCompiler;
  }
}

/**
 * Registered by the OpenAPI plugin after its own hook (which completes each route's answers), before
 * the modules, so that each of their routes passes through it.
 */
export default fp(
  async function schemasPlugin(app: FastifyInstance) {
    app.addHook('onRoute', compileWithZod);
  },
  { name: 'schemas' },
);
