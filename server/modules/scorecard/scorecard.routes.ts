import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { Scorecard, ScorecardQuery } from '../../../src/contracts/scorecard';
import type { ScorecardService } from './scorecard.service';

export interface ScorecardRouteDeps {
  service: ScorecardService;
  /** The news sources this request may not see (the premium ones, for a viewer on the free plan). */
  hiddenFor(request: FastifyRequest): Promise<readonly string[]>;
}

/** `GET /signals/scorecard`: public, like the feed's history. */
export function registerScorecardRoutes(instance: FastifyInstance, deps: ScorecardRouteDeps): void {
  const app = instance.withTypeProvider<ZodTypeProvider>();
  const schema = {
    summary: "How the signals' calls fared against the price afterwards",
    querystring: ScorecardQuery,
    response: { 200: Scorecard },
  };
  app.get('/signals/scorecard', { schema }, async (request): Promise<Scorecard> => {
    const query = request.query;
    return deps.service.report(query, await deps.hiddenFor(request));
  });
}
