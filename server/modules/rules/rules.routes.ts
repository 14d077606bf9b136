import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  BacktestRequest,
  BacktestResult,
  Decision,
  KillSwitchRequest,
  LedgerQuery,
  RiskState,
  RiskUpdate,
  Rule,
  RuleCreate,
  RuleList,
  type RiskSettings,
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
const Deleted = z.undefined().describe('Deleted');

/**
 * Whether a change makes any limit of the risk envelope looser than the stored one: a larger max order,
 * daily budget, number of positions or signal age, or a shorter cooldown.
 */
export function loosens(current: RiskSettings, change: RiskUpdate): boolean {
  const above = (next: number | undefined, now: number) => next !== undefined && next > now;
  return (
    above(change.max_order_usd, current.max_order_usd) ||
    above(change.daily_budget_usd, current.daily_budget_usd) ||
    above(change.max_positions, current.max_positions) ||
    above(change.max_age_seconds, current.max_age_seconds) ||
    (change.cooldown_minutes !== undefined && change.cooldown_minutes < current.cooldown_minutes)
  );
}

/** `/rules/` (spec §7) plus PATCH, the risk envelope and kill switch, the decision ledger and the backtest. */
export function registerRulesRoutes(app: FastifyInstance, deps: RulesRouteDeps): void {
  const { service, risk } = deps;
  const authed = { preHandler: app.requireUser };

  app.get(
    '/rules/',
    { ...authed, schema: { summary: 'Your rules', response: { 200: RuleList } } },
    async (request) => service.list(userOf(request)),
  );

  const createSchema = { summary: 'Add a rule', body: RuleCreate, response: { 201: Rule } };
  app.post('/rules/', { ...authed, schema: createSchema }, async (request, reply) => {
    const body = parseRequest(RuleCreate, request.body);
    reply.code(201);
    return service.create(userOf(request), body);
  });

  const patchSchema = { summary: 'Change a rule', params: IdParam, body: RulePatch, response: { 200: Rule } };
  app.patch('/rules/:id', { ...authed, schema: patchSchema }, async (request) => {
    const { id } = parseRequest(IdParam, request.params, 'path');
    return service.update(userOf(request), id, parseRequest(RulePatch, request.body));
  });

  const deleteSchema = { summary: 'Delete a rule', params: IdParam, response: { 204: Deleted } };
  app.delete('/rules/:id', { ...authed, schema: deleteSchema }, async (request, reply) => {
    const { id } = parseRequest(IdParam, request.params, 'path');
    await service.remove(userOf(request), id);
    reply.code(204);
  });

  const ledgerSchema = {
    summary: 'What the rules decided, newest first',
    querystring: LedgerQuery,
    response: { 200: z.array(Decision) },
  };
  app.get('/rules/ledger', { ...authed, schema: ledgerSchema }, async (request) =>
    service.ledger(userOf(request), parseRequest(LedgerQuery, request.query, 'query')),
  );

  const csvSchema = {
    summary: 'The decision ledger as CSV',
    response: { 200: { description: 'A CSV file', content: { 'text/csv': { schema: z.string() } } } },
  };
  app.get('/rules/ledger.csv', { ...authed, schema: csvSchema }, async (request, reply) => {
    reply.header('content-type', 'text/csv; charset=utf-8');
    reply.header('content-disposition', 'attachment; filename="rule-decisions.csv"');
    return service.ledgerCsv(userOf(request));
  });

  const riskSchema = { summary: 'The risk envelope and kill switch', response: { 200: RiskState } };
  app.get('/rules/risk', { ...authed, schema: riskSchema }, async (request) => risk.state(userOf(request)));

  const riskUpdateSchema = {
    summary: 'Change the risk envelope',
    description: 'Loosening any limit needs a sign-in confirmed in the last minutes (403 step_up_required).',
    body: RiskUpdate,
    response: { 200: RiskState },
  };
  app.put('/rules/risk', { ...authed, schema: riskUpdateSchema }, async (request) => {
    const change = parseRequest(RiskUpdate, request.body);
    // Tightening the envelope is always welcome; loosening any limit needs a confirmed sign-in.
    if (loosens(await risk.settings(userOf(request)), change)) await app.requireStepUp(request);
    return risk.update(userOf(request), change);
  });

  const killSchema = {
    summary: 'Stop (or resume) every rule',
    body: KillSwitchRequest,
    response: { 200: RiskState },
  };
  app.post('/rules/kill-switch', { ...authed, schema: killSchema }, async (request) => {
    const body = parseRequest(KillSwitchRequest, request.body);
    const state = await risk.killSwitch(userOf(request), body.on, body.resume_in_minutes);
    await app.activity.record(userOf(request), { kind: 'kill_switch', detail: { on: String(body.on) } });
    return state;
  });

  const backtestSchema = {
    summary: 'Replay a rule over past signals',
    params: IdParam,
    body: BacktestRequest,
    response: { 200: BacktestResult },
  };
  app.post('/rules/:id/backtest', { ...authed, schema: backtestSchema }, async (request) => {
    const { id } = parseRequest(IdParam, request.params, 'path');
    return deps.backtest(userOf(request), id, parseRequest(BacktestRequest, request.body ?? {}));
  });
}
