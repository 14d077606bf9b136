import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { FeedFilter, KeywordFilter } from '../../../src/contracts/keywords';
import { appError } from '../../plugins/errors';
import type { FeedFiltersService } from './feed-filters.service';

function userOf(request: FastifyRequest): string {
  const principal = request.principal;
  if (principal === null) throw appError('UNAUTHORIZED');
  return principal.userId;
}

const WORDS =
  'Words or phrases, at most 20 in each list, each 1-60 characters; whole words, case-insensitive, a ' +
  'trailing * for a prefix. At least one include term must be in an item (when any is given), no ' +
  'exclude term may be: in its text, its quoted text or its source name.';

/** `GET/PUT /users/me/feed-filter`: what the feed leaves out for the signed-in account. */
export function registerFeedFilterRoutes(instance: FastifyInstance, filters: FeedFiltersService): void {
  const app = instance.withTypeProvider<ZodTypeProvider>();
  const authed = { preValidation: app.requireUser };
  app.get(
    '/users/me/feed-filter',
    { ...authed, schema: { summary: 'Your feed filter', description: WORDS, response: { 200: FeedFilter } } },
    async (request) => filters.get(userOf(request)),
  );
  app.put(
    '/users/me/feed-filter',
    {
      ...authed,
      schema: {
        summary: 'Save your feed filter (two empty lists clear it)',
        description: WORDS,
        body: KeywordFilter,
        response: { 200: FeedFilter },
      },
    },
    async (request) => filters.save(userOf(request), request.body),
  );
}
