import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Scorecard, ScorecardQuery } from '../../../src/contracts/scorecard';
import { parseRequest } from '../../plugins/errors';
import type { ScorecardService } from './scorecard.service';

export interface ScorecardRouteDeps {
  service: ScorecardService;
  /** The news sources this request may not see (the premium ones, for a viewer on the free plan). */
  hiddenFor(request: FastifyRequest): Promise<readonly string[]>;
}

/** `GET /signals/scorecard`: public, like the feed's history. */
export function registerScorecardRoutes(app: FastifyInstance, deps: ScorecardRouteDeps): void {
  const schema = {
    summary: "How the signals' calls fared against the price afterwards",
    querystring: ScorecardQuery,
    response: { 200: Scorecard },
  };
  app.get('/signals/scorecard', { schema }, async (request): Promise<Scorecard> => {
    const query = parseRequest(ScorecardQuery, request.query, 'query');
    return deps.service.report(query, await deps.hiddenFor(request));
  });
}
