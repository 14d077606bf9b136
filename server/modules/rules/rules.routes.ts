import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  BacktestRequest,
  KillSwitchRequest,
  LedgerQuery,
  RiskUpdate,
  RuleCreate,
  RulePatch,
} from '../../../src/contracts/rules';
import { appError, parseRequest } from '../../plugins/errors';
import type { RiskService } from './risk.service';
import type { RulesService } from './rules.service';

export interface RulesRouteDeps {
  service: RulesService;
  risk: RiskService;
  backtest(userId: string, ruleId: string, body: BacktestRequest): Promise<unknown>;
}

function userOf(request: FastifyRequest): string {
  if (request.principal === null) throw appError('UNAUTHORIZED');
  return request.principal.userId;
}

const IdParam = z.object({ id: z.uuid({ error: 'Rule id must be a UUID.' }) });

/** `/rules/` (spec §7) plus PATCH, the risk envelope and kill switch, the decision ledger and the backtest. */
export function registerRulesRoutes(app: FastifyInstance, deps: RulesRouteDeps): void {
  const { service, risk } = deps;
  const authed = { preHandler: app.requireUser };

  app.get('/rules/', authed, async (request) => service.list(userOf(request)));

  app.post('/rules/', authed, async (request, reply) => {
    const body = parseRequest(RuleCreate, request.body);
    reply.code(201);
    return service.create(userOf(request), body);
  });

  app.patch('/rules/:id', authed, async (request) => {
    const { id } = parseRequest(IdParam, request.params, 'path');
    return service.update(userOf(request), id, parseRequest(RulePatch, request.body));
  });

  app.delete('/rules/:id', authed, async (request, reply) => {
    const { id } = parseRequest(IdParam, request.params, 'path');
    await service.remove(userOf(request), id);
    reply.code(204);
  });

  app.get('/rules/ledger', authed, async (request) =>
    service.ledger(userOf(request), parseRequest(LedgerQuery, request.query, 'query')),
  );

  app.get('/rules/ledger.csv', authed, async (request, reply) => {
    reply.header('content-type', 'text/csv; charset=utf-8');
    reply.header('content-disposition', 'attachment; filename="rule-decisions.csv"');
    return service.ledgerCsv(userOf(request));
  });

  app.get('/rules/risk', authed, async (request) => risk.state(userOf(request)));

  app.put('/rules/risk', authed, async (request) =>
    risk.update(userOf(request), parseRequest(RiskUpdate, request.body)),
  );

  app.post('/rules/kill-switch', authed, async (request) => {
    const body = parseRequest(KillSwitchRequest, request.body);
    const state = await risk.killSwitch(userOf(request), body.on, body.resume_in_minutes);
    await app.activity.record(userOf(request), { kind: 'kill_switch', detail: { on: String(body.on) } });
    return state;
  });

  app.post('/rules/:id/backtest', authed, async (request) => {
    const { id } = parseRequest(IdParam, request.params, 'path');
    return deps.backtest(userOf(request), id, parseRequest(BacktestRequest, request.body ?? {}));
  });
}
